#if canImport(Glibc)
import Glibc
#endif

/// Runs an executor's first start — making its dispatch queue and handing it the first drain —
/// on a short-lived thread of its own on Linux, and on the calling thread elsewhere.
///
/// In a process that has not used libdispatch yet (a server or a command-line tool calling
/// `initialize` first thing), making the first queue and the first `async` to it cost the
/// calling thread 85–160 µs: libdispatch's first use and its first worker thread. Starting a
/// thread that does it costs the caller 40–80 µs (Benchmarks/README "Start-up"). An app on
/// Apple platforms has libdispatch's threads running before it initializes, so there the
/// caller makes the queue itself. When no thread can be started, the caller does the work.
enum FirstStart {
    /// Runs `work` on a new detached thread, or on this one when none can be started.
    static func run(_ work: @escaping @Sendable () -> Void) {
        #if os(Linux)
        let context = Unmanaged.passRetained(Work(work)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            context.map { Unmanaged<Work>.fromOpaque($0).takeRetainedValue().body() }
            return nil
        }, context)
        if started == 0 { return }
        Unmanaged<Work>.fromOpaque(context).release()
        #endif
        work()
    }

    /// The work, passed to the new thread as one pointer.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
