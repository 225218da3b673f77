import Foundation

/// Runs code on a thread with a small stack, as an iOS app's secondary threads have, so a test
/// shows that a recursive walk over hostile input stays within it.
package enum SmallStack {
    /// 512 KiB: the stack of a secondary thread on iOS.
    package static let secondaryThreadSize = 512 * 1024

    /// Runs `body` on a new thread with a stack of `size` bytes and returns its result.
    package static func run<Result: Sendable>(size: Int = secondaryThreadSize, _ body: @escaping @Sendable () -> Result) -> Result {
        let box = ResultBox<Result>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.values = [body()]
            done.signal()
        }
        thread.stackSize = size
        thread.start()
        done.wait()
        return box.values[0]
    }
}

/// Written once by the worker thread before it signals, read once after the wait.
private final class ResultBox<Value>: @unchecked Sendable {  // the semaphore orders the write before the read
    var values: [Value] = []
}
