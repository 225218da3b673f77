import Foundation
import MetaRouterCore

extension BatchUploader {
    /// What takes a batch's request to the host, from any thread: the timeout and tracing
    /// header, gzip (off the executor) when on, then the transport, whose answer comes back to
    /// the executor as this attempt's.
    func departure(of batch: PendingBatch, attempt: Int, sentAt: Date) -> @Sendable (TransportRequest) -> Void {
        let timeout = options.requestTimeout
        let trace = tracing
        let send: @Sendable (TransportRequest) -> Void = { [transport, uploaderHandle] request in
            transport.send(request) { outcome in
                uploaderHandle.run { $0.handle(outcome, for: batch, attempt: attempt) }
            }
        }
        let compressing: @Sendable (TransportRequest) -> Void
        if let compression {
            let identity = RequestCompression.BatchIdentity(batch.events)
            compressing = { compression.compress($0, of: identity, sentAt: sentAt, then: send) }
        } else {
            compressing = send
        }
        return { request in
            var request = request
            request.timeout = timeout
            if trace { request.headers["Trace"] = "true" }
            compressing(request)
        }
    }
}
