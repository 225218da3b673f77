import Foundation

/// Which requests of an uploader may still reach its transport, from any thread: taken (a
/// lock) around every hand-over to the transport, so that once the gate is shut, or an attempt
/// settled, nothing more leaves — whatever is still being written or compressed. (The
/// instance's own ``AnalyticsClient/sendingOpen`` is taken inside it.)
struct DepartureGate {
    /// With a format that runs off the executor: the attempt whose request may still leave
    /// once written (and compressed), or 0 once the executor has settled it without that
    /// request (an answer, the watchdog giving up, the uploader closing).
    private(set) var attempt = 0
    /// When that attempt's request reached the transport, in monotonic seconds.
    var leftAt: TimeInterval?
    /// Nothing leaves again: the uploader closed.
    private(set) var isShut = false

    /// Whether a request of `attempt` may reach the transport now; `byAttempt` for a format's
    /// request, which must also be the current attempt's.
    func admits(_ attempt: Int, byAttempt: Bool) -> Bool { !isShut && (!byAttempt || attempt == self.attempt) }

    /// `attempt`'s request may leave once written.
    mutating func open(for attempt: Int) {
        self.attempt = attempt
        leftAt = nil
    }

    /// No request of the current attempt may leave.
    mutating func settle() {
        attempt = 0
        leftAt = nil
    }

    /// No request leaves again.
    mutating func shut() {
        settle()
        isShut = true
    }
}
