import Foundation

/// Runs `work` — a blocking wait (a child process, a collector's port line) or seconds of
/// computation (a fuzz loop) — on a thread of its own instead of one of the threads of Swift's
/// cooperative pool, as part of the calling task: `#expect` inside it is the test's.
///
/// The pool has one thread per core. A test holding one for seconds holds back every other
/// test's `await`s, and a test that times the SDK across that wait can fail.
///
/// The task yields before the caller continues, which puts it back on the pool: code after the
/// call must not run on the short-lived thread, as a process started from a thread that then
/// exits is, now and then, never seen to exit by Foundation.
///
/// Task executors need iOS 18 / macOS 15: on Apple platforms below that, a test target of an
/// app built with this kit does not call it (the SDK's own tests run on Linux).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
package func offThePool<Value>(_ work: () throws -> Value) async throws -> Value {
    let result = await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { Result { try work() } }
    await Task.yield()
    return try result.get()
}

/// Runs each job it is given on a new thread: the task executor of ``offThePool(_:)``, whose
/// jobs block or compute for long, so no thread is shared between them.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}
