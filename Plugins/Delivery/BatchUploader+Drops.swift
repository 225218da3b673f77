import Foundation
import MetaRouterCore

extension BatchUploader {
    /// One warning per failed attempt: how many events, why, when the retry goes, the breaker.
    func describeFailure(_ outcome: Result<TransportResponse, any Error>, batch: PendingBatch, wait: TimeInterval) {
        analytics?.logger.warning(
            "sdk.flush_retry_scheduled: batch of \(batch.events.count) not delivered: \(ResponseClassifier.cause(of: outcome)); retrying in \(String(format: "%.1f", wait)) s (breaker \(retries.breaker.state.rawValue))")
    }

    /// Drops events for good: counted by reason, handed to `onPermanentFailure`, and logged —
    /// evictions from a full queue at most once per interval, with their count.
    func drop(_ events: [QueuedEvent], reason: DropReason, status: Int?, detail: String? = nil) {
        guard !events.isEmpty else { return }
        statsBox.withLock { $0.dropped[reason, default: 0] += events.count }
        onPermanentFailure?(PermanentFailure(reason: reason, status: status, payloads: events))
        guard let analytics else { return }
        if reason == .queueFull {
            let now = analytics.configuration.clock.uptime()
            if let count = evictionReports.add(events.count, at: now) { reportEvictions(count) }
            return
        }
        analytics.logger.warning(
            "sdk.flush_permanent_failure: dropped \(events.count) event(s): \(reason.rawValue)\(status.map { " (status \($0))" } ?? "")\(detail.map { ": \($0)" } ?? "")")
    }

    /// Logs the evictions from a full queue not reported yet: at a flush and at shutdown, so a
    /// burst that ended inside the report interval is not left out of the log.
    func reportUnreportedEvictions() {
        if let count = evictionReports.takeUnreported() { reportEvictions(count) }
    }

    private func reportEvictions(_ count: Int) {
        analytics?.logger.warning(
            "sdk.queue_full: dropped \(count) event(s) since the last report (\(evictionReports.total) in all): \(DropReason.queueFull.rawValue)")
    }
}
