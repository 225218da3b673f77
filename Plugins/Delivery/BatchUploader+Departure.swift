import Foundation
import MetaRouterCore

extension BatchUploader {
    /// What takes a batch's request to the host, from any thread: the timeout and tracing
    /// header, gzip (off the executor) when on, then the transport, whose answer comes back to
    /// the executor as this attempt's. With `reading` (a format's wire), the request reaches
    /// the transport only while the attempt is still ``leaving``, and the answer is read first
    /// on `reading`'s queue (a format's `verdict(for:)`, which the executor does not wait for).
    func departure(
        of batch: PendingBatch, attempt: Int, sentAt: Date, reading: (queue: DispatchQueue, wire: any UploadWire, clock: any AnalyticsClock)?
    ) -> @Sendable (TransportRequest) -> Void {
        let timeout = options.requestTimeout
        let trace = tracing
        let send: @Sendable (TransportRequest) -> Void = { [transport, uploaderHandle, leaving] request in
            guard let reading else {
                return transport.send(request) { outcome in uploaderHandle.run { $0.handle(outcome, for: batch, attempt: attempt) } }
            }
            // Under the lock the executor takes to settle the attempt or close: a request
            // written (or compressed) after that never leaves, and the watchdog times the
            // request from here.
            leaving.withLock { state in
                guard state.attempt == attempt else { return }
                state.leftAt = reading.clock.uptime()
                transport.send(request) { outcome in
                    reading.queue.async {
                        let verdict = reading.wire.classify(outcome, now: reading.clock.now())
                        uploaderHandle.run { $0.handle(outcome, for: batch, attempt: attempt, verdict: verdict) }
                    }
                }
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
