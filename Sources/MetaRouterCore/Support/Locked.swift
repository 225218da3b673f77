import Foundation

/// A value guarded by a lock.
///
/// The toolchain's `Synchronization.Mutex` needs iOS 18 / macOS 15, above this package's
/// deployment targets, so the guard here is an `NSLock`, which every supported platform has.
///
/// It is `Sendable` only when `Value` is: a lock makes access exclusive, but it cannot make a
/// non-Sendable value safe to hand to another thread once it is read out.
package final class Locked<Value> {
    private let lock = NSLock()
    /// Only touched with `lock` held, so the runtime's per-access exclusivity check (a
    /// thread-local lookup on every `withLock`) would only repeat what the lock guarantees.
    @exclusivity(unchecked) private var value: Value

    /// Guards `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}

extension Locked: @unchecked Sendable where Value: Sendable {}  // every access to `value` holds `lock`

extension Locked {
    /// Takes the lock alone, for ``ForkGuard/holdAcrossFork(_:)``: in the thread that forks,
    /// just before the fork.
    package func acquireForFork() { lock.lock() }
    /// Releases what ``acquireForFork()`` took: in that thread, after the fork, in the parent
    /// and in the child.
    package func releaseAfterFork() { lock.unlock() }
}

extension Locked where Value == Bool {
    /// Sets the flag and returns whether this was the first call to set it: for callbacks
    /// that must act once however often they are called.
    package func firstTime() -> Bool {
        withLock { done in
            defer { done = true }
            return !done
        }
    }
}
