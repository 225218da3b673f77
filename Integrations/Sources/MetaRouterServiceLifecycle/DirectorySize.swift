import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes the files under a directory hold, for the tenants' disk budget: a bounded walk
/// (100,000 entries at most) that reads sizes and opens no file. `readdir` and `lstat` directly:
/// every admission measures the live tenants' directories, so a walk costs microseconds, not
/// the milliseconds of `FileManager`'s enumerator.
enum DirectorySize {
    static func bytes(in directory: URL) -> Int {
        var seen = 0
        return bytes(atPath: directory.path, depth: 0, seen: &seen)
    }

    private static func bytes(atPath path: String, depth: Int, seen: inout Int) -> Int {
        guard depth < 8, let stream = opendir(path) else { return 0 }
        defer { closedir(stream) }
        var total = 0
        while seen < 100_000, let entry = readdir(stream) {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            // POSIX's file-type bits (S_IFMT, S_IFREG, S_IFDIR), the same on Linux and Darwin.
            switch info.st_mode & 0o170000 {
            case 0o100000: total = total.addingReportingOverflow(max(0, Int(info.st_size))).partialValue
            case 0o040000: total = total.addingReportingOverflow(bytes(atPath: child, depth: depth + 1, seen: &seen)).partialValue
            default: continue
            }
        }
        return total
    }
}
