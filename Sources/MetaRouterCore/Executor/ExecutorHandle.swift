/// A weak reference to an object of the executor (a plugin, an uploader) that work on another
/// thread — a timer, a transport's answer, a source's callback — carries to come back to it.
/// The object is reached only inside work put on its client's executor, so the work returns to
/// the very object that started it, never to another of its class found by type.
package struct ExecutorHandle<Target: AnyObject>: @unchecked Sendable {  // `target` is dereferenced only in work on `analytics`'s executor
    private weak var target: Target?
    private weak var analytics: AnalyticsClient?

    /// A handle on `target`, which belongs to `analytics`'s executor.
    package init(_ target: Target, on analytics: AnalyticsClient?) {
        self.target = target
        self.analytics = analytics
    }

    /// Runs `work` with the target on the executor, in order with the calls, if both are alive.
    package func perform(_ work: @escaping @Sendable (Target, Timeline) -> Void) {
        analytics?.perform { [self] timeline in
            guard let target else { return }
            work(target, timeline)
        }
    }

    /// Runs `work` with the target on the executor as prompt work (ahead of waiting events), if
    /// both are alive; otherwise `gone`, so that whoever waits for the work gets an answer.
    package func performPromptly(_ work: @escaping @Sendable (Target, Timeline) -> Void, orIfGone gone: (@Sendable () -> Void)? = nil) {
        guard let analytics else {
            gone?()
            return
        }
        analytics.performPromptly { [self] timeline in
            guard let target else {
                gone?()
                return
            }
            work(target, timeline)
        }
    }
}
