import Foundation

/// Runs blocking waits — for a Python collector's port line, for a child process — on a
/// thread of its own, so that it does not hold one of the threads of Swift's cooperative pool.
/// That pool has one thread per core: a test that blocks one for seconds holds back every other
/// test's `await`s, and their timeouts fail on a busy machine.
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
