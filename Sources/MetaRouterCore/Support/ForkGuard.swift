import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells whether this process is a `fork()` child of the one that created the SDK's instances.
///
/// A forked child has only the thread that called `fork()`: every executor, timer and
/// transport thread of the parent is gone, so an instance inherited from the parent cannot run
/// anything, and must not write to the parent's event log. A `pthread_atfork` handler, installed
/// when the first client is created, marks the child; instances check the mark (one load) and
/// are inert there: calls are dropped, waiting calls return at once.
package enum ForkGuard {
    /// Installs the handler (once per process).
    package static func install() {
        _ = installed
    }

    /// Whether this process was forked after the handler was installed.
    package static var isChild: Bool { forkedChild.pointee }

    private static let installed: Bool = {
        pthread_atfork(nil, nil, { forkedChild.pointee = true }) == 0
    }()
}

/// Written only in a forked child, by the `pthread_atfork` handler, while that child has one
/// thread; read everywhere else. Allocated once and never freed.
private nonisolated(unsafe) let forkedChild: UnsafeMutablePointer<Bool> = {
    let flag = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
    flag.initialize(to: false)
    return flag
}()
