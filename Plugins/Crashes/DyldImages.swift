#if canImport(Darwin)
import Darwin
import MachO

/// Apple glue: the images dyld has loaded, each as its `__TEXT` range (`MachOTextSegment`
/// walks the header). No inode: images of the shared cache have no file of their own.
enum DyldImages {
    static func current() -> [LoadedImage] {
        (0..<_dyld_image_count()).compactMap { index in
            guard let header = _dyld_get_image_header(index), let name = _dyld_get_image_name(index) else { return nil }
            return MachOTextSegment.image(header: UnsafeRawPointer(header), slide: _dyld_get_image_vmaddr_slide(index), path: String(cString: name))
        }
    }
}
#endif
