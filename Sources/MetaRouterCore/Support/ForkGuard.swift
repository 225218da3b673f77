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
/// anything, and must not write to the parent's event log. Nor may it take any lock of the
/// parent's: a thread that is gone (a producer calling `track`, the executor) may have held it
/// at the fork, and it stays held forever. A `pthread_atfork` handler, installed when the first
/// client is created, marks the child; instances check the mark (one load) before any lock and
/// are inert there: calls are dropped, waiting calls return at once, and one line says so.
package enum ForkGuard {
    /// Installs the handler (once per process).
    package static func install() {
        _ = installed
    }

    /// Whether this process was forked after the handler was installed.
    package static var isChild: Bool { forkedChild.pointee.isChild }

    /// Logs, once per process and only in a forked child, that the instances inherited from the
    /// parent do nothing here. Takes only a lock made in the child, and writes to `logger`'s
    /// sink without its threshold's lock.
    package static func noteChild(_ logger: AnalyticsLogger) {
        guard isChild else { return }
        pthread_mutex_lock(&forkedChild.pointee.lock)
        let first = !forkedChild.pointee.reported
        forkedChild.pointee.reported = true
        pthread_mutex_unlock(&forkedChild.pointee.lock)
        guard first else { return }
        logger.logWithoutThreshold(
            .error,
            "sdk.forked_child: this process is a fork() child of the one that created the instances it inherited; "
                + "they do nothing here (calls are dropped, waiting calls return at once): create instances after fork()")
    }

    /// Holds `lock` while the process forks (taken just before, released just after, in the
    /// parent and in the child), so a child never inherits it held by a thread it does not
    /// have. For the few process-wide locks a child's calls still pass through: the registry of
    /// instances and `shared`'s. Each is held only briefly and never while taking another.
    package static func holdAcrossFork(_ lock: HeldAcrossFork) {
        install()
        heldAcrossFork.withLock { $0 = HeldLocks(lock, after: $0) }
    }

    private static let installed: Bool = {
        pthread_atfork(
            {
                forkingHolds = heldAcrossFork.current
                forkingHolds?.acquireAll()
            },
            {
                forkingHolds?.releaseAll()
                forkingHolds = nil
            },
            {
                // The child has one thread here: its own lock is made afresh, unheld.
                pthread_mutex_init(&forkedChild.pointee.lock, nil)
                forkedChild.pointee.reported = false
                forkedChild.pointee.isChild = true
                forkingHolds?.releaseAll()
                forkingHolds = nil
            }) == 0
    }()
}

/// A lock ``ForkGuard/holdAcrossFork(_:)`` takes and releases around `fork()`.
package struct HeldAcrossFork: Sendable {
    let acquire: @Sendable () -> Void
    let release: @Sendable () -> Void

    /// `lock`, held across every later `fork()`.
    package init<Value: Sendable>(_ lock: Locked<Value>) {
        acquire = { lock.acquireForFork() }
        release = { lock.releaseAfterFork() }
    }
}

/// The locks held across a fork, newest first: a list of nodes, not an array, whose type the
/// Swift runtime would make at its first use — in an app's first `initialize`.
private final class HeldLocks: Sendable {
    let lock: HeldAcrossFork
    let next: HeldLocks?

    init(_ lock: HeldAcrossFork, after next: HeldLocks?) {
        self.lock = lock
        self.next = next
    }

    /// Takes every lock, newest first.
    func acquireAll() {
        lock.acquire()
        next?.acquireAll()
    }

    /// Releases every lock, oldest first.
    func releaseAll() {
        next?.releaseAll()
        lock.release()
    }
}

/// The locks held across a fork.
private let heldAcrossFork = Locked<HeldLocks?>(nil)

/// The locks the thread forking now holds: written and read only by that thread, between the
/// `pthread_atfork` handlers of one `fork()` (which the handlers' own order serialises).
private nonisolated(unsafe) var forkingHolds: HeldLocks?

/// What a forked child knows of itself.
private struct ForkState {
    var isChild = false
    var reported = false
    var lock = pthread_mutex_t()
}

/// Written only in a forked child, by the `pthread_atfork` handler while that child has one
/// thread (and `reported` under the lock made there); read everywhere else. Allocated once and
/// never freed.
private nonisolated(unsafe) let forkedChild: UnsafeMutablePointer<ForkState> = {
    let state = UnsafeMutablePointer<ForkState>.allocate(capacity: 1)
    state.initialize(to: ForkState())
    return state
}()
