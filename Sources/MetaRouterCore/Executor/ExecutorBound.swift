/// A value confined to one client's executor, carried through a `@Sendable` closure that runs
/// on that executor (a flush's completion, prompt work). Reading ``value`` anywhere else stops
/// the process, in release builds too: the check is one thread-specific lookup
/// (``PipelineExecutor/isCurrent``), as NIO's `NIOLoopBound` asks its loop, and a read off the
/// executor would be a data race in the SDK itself.
package struct ExecutorBound<Value>: @unchecked Sendable {  // `value` is handed out only on `client`'s executor, checked at each read
    private let confined: Value
    private let client: AnalyticsClient

    /// Wraps `value`, which belongs to `client`'s executor.
    package init(_ value: Value, on client: AnalyticsClient) {
        confined = value
        self.client = client
    }

    /// The confined value; on `client`'s executor only.
    package var value: Value {
        precondition(client.isOnExecutor, "ExecutorBound read off its client's executor")
        return confined
    }
}
