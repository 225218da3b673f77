import Foundation

/// What the client says when the ingress refuses an event — a dropped call, a fork child, or
/// a full ingress (one line per interval, and the rest of a burst at a quiet moment) — and the
/// calls it drops once it is shut down.
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

    /// Runs the work of an app's call (one that is not an event: an identity, consent or
    /// settings change) on the executor, in order with the events — unless the client's shutdown
    /// reached the executor first: then the call is dropped, counted and logged
    /// (`sdk.call_dropped`), as an event made after the shutdown is, for the files it would
    /// change belong to the next instance.
    ///
    /// - Parameters:
    ///   - call: What the call is, for the log line ("setConsent call").
    ///   - work: Gets the timeline, which must not leave the closure.
    package func performCall(_ call: String, _ work: @escaping @Sendable (Timeline) -> Void) {
        perform { [self] timeline in
            if !dropsCall(call, on: timeline) { work(timeline) }
        }
    }

    /// Whether a call that reached the executor running `timeline` is dropped there: the client
    /// whose executor it is (the instance's, for a call kept on `shared`) has shut down. The
    /// drop is counted and logged under `call` when one is named.
    package func dropsCall(_ call: String?, on timeline: Timeline) -> Bool {
        let running = timeline.client ?? self
        guard running.isClosedToCalls else { return false }
        if let call { running.noteDroppedCall(call) }
        return true
    }

    /// Whether the client's shutdown has reached the executor (read there: what runs after it
    /// is dropped as a call would be).
    var isClosedToCalls: Bool { status.withLock { $0.closedToCalls } }

    /// Logs the events refused at a full ingress that no line has counted yet. Not in a fork
    /// child: the ingress lock may have been held by a thread the child does not have.
    func reportUnreportedOverflow() {
        guard !ForkGuard.isChild, let count = executor.takeUnreportedOverflow() else { return }
        answer(.overflowed(report: count), type: .track)
    }
}

/// Handing what a keeping client (``AnalyticsClient/init(keeping:)``) kept to the client it is
/// bound to.
extension AnalyticsClient {
    /// Moves what this client kept (``init(keeping:)``) into `successor`, ahead of every call
    /// made to either from now on, and sends every later call there. `first`, given the number
    /// of events kept, may return work that runs there before them.
    ///
    /// - Parameters:
    ///   - successor: The client that runs the kept calls and every later one.
    ///   - first: Work to run ahead of the kept calls, given how many events they are.
    package func handOver(to successor: AnalyticsClient, first: (Int) -> (@Sendable (Timeline) -> Void)?) {
        status.withLock { $0.successor = successor }
        executor.handOver(to: successor.executor) { events in first(events).map(Command.operation) }
    }

    /// Calls waiting for the executor, and how many of them are events.
    package var waitingCalls: (all: Int, events: Int) {
        let waiting = executor.waiting
        return (waiting.commands, waiting.events)
    }

    /// Refused events not reported yet (a burst that ended inside the report interval), taken:
    /// whoever takes them reports them.
    package func takeUnreportedOverflow() -> Int? {
        guard !ForkGuard.isChild else { return nil }
        return executor.takeUnreportedOverflow()
    }
}
