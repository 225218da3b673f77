/// The `__TEXT` segment of a 64-bit Mach-O image in memory, found by walking its load
/// commands (read unaligned: a damaged command size must not trap): the glue hands in what dyld reports (the header's address, the slide, the path),
/// and this platform-neutral walk is what the Linux tests drive with images they lay out.
enum MachOTextSegment {
    /// `MH_MAGIC_64`.
    static let magic: UInt32 = 0xFEED_FACF
    /// `LC_SEGMENT_64`.
    static let segmentCommand: UInt32 = 0x19
    /// `sizeof(mach_header_64)`.
    static let headerSize = 32
    /// `sizeof(segment_command_64)`.
    static let segmentCommandSize = 72

    /// The image's `__TEXT` range (slid), with the segment's unslid address standing in for
    /// the file offset; `nil` for anything but a 64-bit image, a walk that would leave the
    /// commands' declared size, or an image without a non-empty `__TEXT`.
    static func image(header: UnsafeRawPointer, slide: Int, path: String) -> LoadedImage? {
        guard header.loadUnaligned(as: UInt32.self) == magic else { return nil }
        let count = header.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
        let commandsSize = Int(header.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        var offset = 0
        for _ in 0..<count {
            guard offset + 8 <= commandsSize else { return nil }
            let command = header.advanced(by: headerSize + offset)
            let kind = command.loadUnaligned(as: UInt32.self)
            let size = Int(command.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            guard size >= 8, size <= commandsSize - offset else { return nil }
            if kind == segmentCommand, size >= segmentCommandSize, isText(name: command.advanced(by: 8)) {
                let address = command.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                let length = command.loadUnaligned(fromByteOffset: 32, as: UInt64.self)
                guard length > 0, length <= UInt64(UInt.max) else { return nil }
                let start = UInt(truncatingIfNeeded: address) &+ UInt(bitPattern: slide)
                return LoadedImage(start: start, end: start &+ UInt(length), fileOffset: address, inode: 0, path: path)
            }
            offset += size
        }
        return nil
    }

    /// Whether the 16-byte segment name is `__TEXT` (NUL-padded).
    private static func isText(name: UnsafeRawPointer) -> Bool {
        let expected = Array("__TEXT".utf8) + [UInt8](repeating: 0, count: 10)
        return (0..<16).allSatisfy { name.load(fromByteOffset: $0, as: UInt8.self) == expected[$0] }
    }
}
