import Foundation

/// What the client says when the ingress refuses an event: a dropped call, a fork child, or
/// a full ingress (one line per interval, and the rest of a burst at a quiet moment).
extension AnalyticsClient {
    /// Reports what refused an event, if anything did.
    func answer(_ admission: PipelineExecutor.Admission, type: EventType) {
        switch admission {
        case .accepted, .overflowed(report: nil), .behind:
            return
        case .refused:
            noteDroppedCall("\(type.rawValue) call")
        case .forked:
            noteForkedChild()
        case .overflowed(let report?):
            logger.warning(
                "sdk.ingress_full: dropped \(report) event(s) at the call since the last report: \(configuration.maxPendingEvents) events were already waiting for the "
                    + "executor (Configuration.maxPendingEvents); \(overflowedEvents) dropped this way in all")
        }
    }

    /// Logs the events refused at a full ingress that no line has counted yet. Not in a fork
    /// child: the ingress lock may have been held by a thread the child does not have.
    func reportUnreportedOverflow() {
        guard !ForkGuard.isChild, let count = executor.takeUnreportedOverflow() else { return }
        answer(.overflowed(report: count), type: .track)
    }
}
