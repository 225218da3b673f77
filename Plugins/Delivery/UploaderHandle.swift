import MetaRouterCore

/// A weak reference to an uploader that a callback on another thread (a transport's answer, a
/// timer) carries to come back to it: the uploader is only reached inside work that
/// ``run(_:)`` puts on its client's executor, as prompt work.
struct UploaderHandle: @unchecked Sendable {  // `uploader` is dereferenced only on its client's executor
    weak var uploader: BatchUploader?
    weak var analytics: AnalyticsClient?

    /// Runs `work` with the uploader on its executor, if both are still alive.
    func run(_ work: @escaping @Sendable (BatchUploader) -> Void) {
        analytics?.performPromptly { [self] _ in
            guard let uploader else { return }
            work(uploader)
        }
    }
}

extension BatchUploader {
    /// What a callback from another thread carries to come back to this uploader.
    var uploaderHandle: UploaderHandle { UploaderHandle(uploader: self, analytics: analytics) }
}
