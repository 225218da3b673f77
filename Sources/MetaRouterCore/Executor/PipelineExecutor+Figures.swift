import Foundation

/// What the ingress has counted, read under its lock.
extension PipelineExecutor {
    /// Events refused so far because the ingress was full.
    var overflowedEvents: Int { ingress.withLock { $0.overflowed } }

    /// Refused events not reported yet (a burst that ended inside the report interval).
    func takeUnreportedOverflow() -> Int? { ingress.withLock { $0.overflowReports.takeUnreported() } }

    /// Track calls taken so far with their values packed, behind a backlog.
    var packedCalls: Int { ingress.withLock { $0.packed } }

    /// Commands waiting in the ingress, and how many of them are events.
    var waiting: (commands: Int, events: Int) { ingress.withLock { ($0.pending.count, $0.pendingEvents) } }
}
