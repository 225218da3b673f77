#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the process freed back to the system, where the allocator keeps it otherwise.
/// glibc's `malloc` keeps freed heap pages (and raises its threshold for returning large blocks
/// each time one is freed), so the temporaries of opening a large backlog would stay resident
/// for the life of the process; `malloc_trim(0)` returns them. It is looked up at run time, so
/// a C library without it (musl) is a no-op, as are Apple platforms, whose allocator returns
/// large blocks itself.
enum MemoryRelease {
    #if os(Linux) && canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32
    /// The function, resolved once.
    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }
    #endif

    /// Returns the freed heap to the system, where the platform's allocator can.
    static func returnFreedMemory() {
        #if os(Linux) && canImport(Glibc)
        _ = trim?(0)
        #endif
    }
}
