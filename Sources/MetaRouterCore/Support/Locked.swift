import Foundation

/// A value guarded by a lock, shared by every copy.
///
/// The toolchain's `Synchronization.Mutex` needs iOS 18 / macOS 15, above this package's
/// deployment targets, so the guard here is an `NSLock`, which every supported platform has.
///
/// A struct over a storage class that is not generic: a generic class's type is made by the
/// Swift runtime the first time a process uses it (its mangled name demangled, its metadata
/// built), and the first such use in a process costs more than all of `initialize` should
/// (Benchmarks/README "Start-up"). `initialize` makes a dozen of these, so none of them may
/// be a generic class. Copies share the value, as references to one object would.
///
/// It is `Sendable` only when `Value` is: a lock makes access exclusive, but it cannot make a
/// non-Sendable value safe to hand to another thread once it is read out.
package struct Locked<Value> {
    private let storage: LockedStorage

    /// Guards `value`.
    package init(_ value: Value) {
        let pointer = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        pointer.initialize(to: value)
        storage = LockedStorage(value: UnsafeMutableRawPointer(pointer)) { raw in
            let typed = raw.assumingMemoryBound(to: Value.self)
            typed.deinitialize(count: 1)
            typed.deallocate()
        }
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        storage.lock.lock()
        defer { storage.lock.unlock() }
        return try body(&storage.value.assumingMemoryBound(to: Value.self).pointee)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}

extension Locked: @unchecked Sendable where Value: Sendable {}  // every access to the value holds the lock

/// What every copy of one ``Locked`` shares: its lock and its value's memory, which it frees.
private final class LockedStorage {
    let lock = NSLock()
    /// The value, of the type its ``Locked`` was made for; only touched with `lock` held.
    let value: UnsafeMutableRawPointer
    private let destroy: (UnsafeMutableRawPointer) -> Void

    init(value: UnsafeMutableRawPointer, destroy: @escaping (UnsafeMutableRawPointer) -> Void) {
        self.value = value
        self.destroy = destroy
    }

    deinit { destroy(value) }
}

extension Locked {
    /// Takes the lock alone, for ``ForkGuard/holdAcrossFork(_:)``: in the thread that forks,
    /// just before the fork.
    package func acquireForFork() { storage.lock.lock() }
    /// Releases what ``acquireForFork()`` took: in that thread, after the fork, in the parent
    /// and in the child.
    package func releaseAfterFork() { storage.lock.unlock() }
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
