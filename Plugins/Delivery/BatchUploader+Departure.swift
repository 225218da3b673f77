import Foundation
import MetaRouterCore

extension BatchUploader {
    /// What takes a batch's request to the host, from any thread: the timeout and tracing
    /// header, gzip (off the executor) when on, then the transport, whose answer comes back to
    /// the executor as this attempt's — if its gate (``departures``) and its instance admit it
    /// then. With `reading` (a format's wire), the attempt must still be the current one, and
    /// the answer is read first on `reading`'s queue (a format's `verdict(for:)`, which the
    /// executor does not wait for).
    func departure(
        of batch: PendingBatch, attempt: Int, sentAt: Date, reading: (queue: DispatchQueue, wire: any UploadWire, clock: any AnalyticsClock)?
    ) -> @Sendable (TransportRequest) -> Void {
        let timeout = options.requestTimeout
        let trace = tracing
        let instanceSending = analytics?.sendingOpen ?? Locked(false)
        let handOver: @Sendable (TransportRequest) -> Void = { [transport, uploaderHandle] request in
            guard let reading else {
                return transport.send(request) { outcome in uploaderHandle.run { $0.handle(outcome, for: batch, attempt: attempt) } }
            }
            transport.send(request) { outcome in
                reading.queue.async {
                    let verdict = reading.wire.classify(outcome, now: reading.clock.now())
                    uploaderHandle.run { $0.handle(outcome, for: batch, attempt: attempt, verdict: verdict) }
                }
            }
        }
        let send: @Sendable (TransportRequest) -> Void = { [departures] request in
            // Under the gate's lock and the instance's: a request written (or compressed) after
            // its attempt was settled, its uploader closed or its instance's shutdown passed
            // its deadline never leaves. A format's request is timed by the watchdog from here.
            departures.withLock { gate in
                guard gate.admits(attempt, byAttempt: reading != nil) else { return }
                let sent = instanceSending.withLock { open -> Bool in
                    if open { handOver(request) }
                    return open
                }
                if sent, let reading { gate.leftAt = reading.clock.uptime() }
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
