import Foundation

/// A value guarded by a lock.
///
/// The toolchain's `Synchronization.Mutex` needs iOS 18 / macOS 15, above this package's
/// deployment targets, so the guard here is an `NSLock`, which every supported platform has.
public final class Locked<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var current: Value { withLock { $0 } }
}
