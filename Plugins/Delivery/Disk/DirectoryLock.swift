import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on `<directory>/lock`, held for the life of the
/// store, so a second process opening the same directory is refused instead of sharing a queue.
final class DirectoryLock {
    private var descriptor: Int32

    /// Takes the lock, or throws ``DiskStoreError/locked(_:)`` when another process holds it.
    init(directory: URL) throws {
        let path = directory.appendingPathComponent("lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DiskStoreError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw DiskStoreError.locked(directory.path)
        }
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Takes the lock again after ``release()``, or throws ``DiskStoreError/locked(_:)`` when
    /// another process took it meanwhile.
    func reacquire(directory: URL) throws {
        guard descriptor < 0 else { return }
        let replacement = try DirectoryLock(directory: directory)
        descriptor = replacement.descriptor
        replacement.descriptor = -1
    }

    /// Whether the lock's descriptor is open.
    var isHeld: Bool { descriptor >= 0 }

    /// Takes the lock again when its file is gone (the directory was removed and recreated),
    /// or throws ``DiskStoreError/locked(_:)`` when another process took it meanwhile.
    func ensureHeld(directory: URL) throws {
        var info = stat()
        if descriptor >= 0, fstat(descriptor, &info) == 0, info.st_nlink > 0 { return }
        let replacement = try DirectoryLock(directory: directory)
        release()
        descriptor = replacement.descriptor
        replacement.descriptor = -1
    }

    /// Gives the lock up (once): another store may open the directory now.
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }
}

/// Why the disk store could not open.
package enum DiskStoreError: Error, CustomStringConvertible, Equatable {
    /// Another process (or instance) holds the directory's lock.
    case locked(String)
    /// A file-system call failed.
    case io(String)

    /// A sentence for logs and `getDebugInfo`.
    package var description: String {
        switch self {
        case .locked(let path): return "the event log at \(path) is in use by another process or instance"
        case .io(let message): return message
        }
    }
}
