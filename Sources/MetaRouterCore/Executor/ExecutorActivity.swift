/// What a client's executor is doing, as its ingress sees it, and so what a submission must do
/// to get its command run.
///
/// After a drain that ran events, the executor does not go idle at once: it pauses for
/// ``pause`` on its own thread, then takes what arrived meanwhile. A server's stream of calls
/// then reaches the executor without waking it — each call only appends to the ingress — and the
/// executor wakes once per pause; only a pause that finds nothing new lets it go idle, so a lone
/// call still wakes it at once. An operation or a prompt piece of work (a flush, an upload's
/// answer, a timer) cuts a pause short, so only events ever wait for one.
///
/// Waiting on the executor's own thread replaces a dispatch timer per wake-up, which cost the
/// process's timer thread a wake-up each time and the caller a system call to arm it.
struct ExecutorActivity: Equatable {
    enum Phase: Equatable {
        /// Nothing scheduled: the next submission starts a drain.
        case idle
        /// A drain is scheduled or running.
        case draining
        /// The drain waits out a pause for more events.
        case pausing
        /// Commands are kept in order and none runs until the executor is released.
        case held
    }

    /// What a submission does after appending its command.
    enum Wake: Equatable {
        /// Nothing: the executor will find the command.
        case none
        /// Schedules a drain.
        case start
        /// Signals the pausing executor to look now.
        case endPause
    }

    /// How long the executor waits for more events after a drain that ran some: a millisecond,
    /// which an app does not notice and a server's stream of calls shares.
    static let pause: Double = 0.001

    private(set) var phase: Phase

    init(held: Bool) { phase = held ? .held : .idle }

    /// A command was appended; `urgent` for anything but an event.
    mutating func submitted(urgent: Bool) -> Wake {
        switch phase {
        case .idle:
            phase = .draining
            return .start
        case .pausing where urgent:
            phase = .draining
            return .endPause
        case .draining, .pausing, .held:
            return .none
        }
    }

    /// The drain found the ingress empty; `afterEvents` when events ran since it started or last
    /// paused. Returns whether it pauses (else it ends, and the executor is idle).
    mutating func foundEmpty(afterEvents: Bool) -> Bool {
        phase = afterEvents ? .pausing : .idle
        return afterEvents
    }

    /// The pause's time ran out. Returns whether a submission ended it meanwhile: that
    /// submission's signal is then still to be consumed.
    mutating func pauseTimedOut() -> Bool {
        guard phase == .pausing else { return true }
        phase = .draining
        return false
    }

    /// The executor is released; `hasWork` when commands wait. Returns whether to start a drain.
    mutating func released(hasWork: Bool) -> Bool {
        guard phase == .held else { return false }
        phase = hasWork ? .draining : .idle
        return hasWork
    }
}
