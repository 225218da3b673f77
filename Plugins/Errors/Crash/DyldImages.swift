#if canImport(Darwin)
import Darwin
import MachO

/// Apple glue: the images dyld has loaded, each as the range of its `__TEXT` segment, with the
/// segment's unslid address standing in for the file offset (what a symbolicator needs with the
/// image's path). No inode: images of the shared cache have no file of their own.
enum DyldImages {
    static func current() -> [LoadedImage] {
        var images: [LoadedImage] = []
        for index in 0..<_dyld_image_count() {
            guard let header = _dyld_get_image_header(index), let name = _dyld_get_image_name(index),
                header.pointee.magic == UInt32(MH_MAGIC_64)
            else { continue }
            let slide = _dyld_get_image_vmaddr_slide(index)
            var command = UnsafeRawPointer(header).advanced(by: MemoryLayout<mach_header_64>.size)
            for _ in 0..<header.pointee.ncmds {
                let load = command.load(as: load_command.self)
                if load.cmd == UInt32(LC_SEGMENT_64) {
                    let segment = command.load(as: segment_command_64.self)
                    let isText = withUnsafeBytes(of: segment.segname) { $0.starts(with: Array("__TEXT".utf8) + [0]) }
                    if isText, segment.vmsize > 0 {
                        let start = UInt(segment.vmaddr) &+ UInt(bitPattern: slide)
                        images.append(LoadedImage(
                            start: start, end: start &+ UInt(segment.vmsize), fileOffset: segment.vmaddr, inode: 0,
                            path: String(cString: name)))
                    }
                }
                command = command.advanced(by: Int(load.cmdsize))
            }
        }
        return images
    }
}
#endif
