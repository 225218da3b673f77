import Foundation

/// A file mapped executable into this process: the range of addresses it occupies, where that
/// range starts in the file, and the file's inode and path. A return address in the range is
/// recorded as (path, inode, offset in the file), which stays the same from launch to launch
/// whatever the address-space layout, so the next start can find the same code again.
struct LoadedImage: Equatable, Sendable {
    var start: UInt
    var end: UInt
    var fileOffset: UInt64
    var inode: UInt64
    var path: String

    /// The executable mappings of this process now (Linux: `/proc/self/maps`; Apple: the
    /// images dyld has loaded). Empty when the platform gives none.
    static func current() -> [LoadedImage] {
        #if os(Linux)
        // Read to the end by hand: the file reports a size of 0, and reading it by its size
        // stops after the first page.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps"), let data = try? handle.readToEnd() else { return [] }
        try? handle.close()
        return parseMaps(String(decoding: data, as: UTF8.self))
        #elseif canImport(Darwin)
        return DyldImages.current()
        #else
        return []
        #endif
    }

    /// The executable, file-backed lines of a `/proc/<pid>/maps` text.
    static func parseMaps(_ text: String) -> [LoadedImage] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].contains("x") else { return nil }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            let range = fields[0].split(separator: "-")
            guard path.hasPrefix("/"), range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                start < end, let offset = UInt64(fields[2], radix: 16), let inode = UInt64(fields[4])
            else { return nil }
            return LoadedImage(start: start, end: end, fileOffset: offset, inode: inode, path: path)
        }
    }

    /// Where `fileOffset` of the file at `path` (with `inode`) is mapped in this process, if the
    /// same file is mapped here.
    static func address(path: String, inode: UInt64, fileOffset: UInt64, in images: [LoadedImage]) -> UInt? {
        for image in images where image.path == path && image.inode == inode && fileOffset >= image.fileOffset {
            let distance = fileOffset - image.fileOffset
            guard distance < UInt64(image.end - image.start) else { continue }
            return image.start + UInt(distance)
        }
        return nil
    }
}
