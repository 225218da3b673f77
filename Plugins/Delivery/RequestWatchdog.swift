import Foundation
import MetaRouterCore

/// Gives up on a request that outlives ``limit``, so a transport that never answers cannot
/// stall delivery.
///
/// One timer serves a stream of requests: when it fires and finds a younger request in flight,
/// it is armed again for what that request has left. (A Dispatch timer created and cancelled
/// per request cost the executor about 5 % of its time at 3,000 requests a second.) A request is
/// given up between `limit` and twice `limit` after it started. Confined to the executor.
struct RequestWatchdog {
    /// What a check found.
    enum Finding: Equatable {
        /// Nothing is in flight: the timer stays off until the next request.
        case idle
        /// The request in flight has outlived the limit.
        case expired
        /// The request in flight has this many seconds left: check again then.
        case remaining(TimeInterval)
    }

    /// Seconds a request may take before it counts as a network error.
    let limit: TimeInterval
    private var timer: (any ScheduledWork)?

    init(limit: TimeInterval) { self.limit = limit }

    /// The limit for requests whose transport times out after `requestTimeout` seconds: twice
    /// that, and a grace period of 5 s.
    static func limit(forRequestTimeout requestTimeout: TimeInterval) -> TimeInterval { requestTimeout * 2 + 5 }

    /// Schedules `check` `delay` seconds from now on `clock`, unless a check is pending.
    /// `check` runs on the clock's thread: it hops to the executor and calls ``fired(started:now:)``.
    mutating func arm(after delay: TimeInterval, on clock: any AnalyticsClock, check: @escaping @Sendable () -> Void) {
        guard timer == nil else { return }
        timer = clock.schedule(after: delay, check)
    }

    /// Called by the check, on the executor, with the start of the request in flight (if any),
    /// both in monotonic seconds.
    mutating func fired(started: TimeInterval?, now: TimeInterval) -> Finding {
        timer = nil
        guard let started else { return .idle }
        return hasExpired(started: started, now: now) ? .expired : .remaining(limit - (now - started))
    }

    /// Whether a request that started at `started` has outlived the limit at `now`.
    func hasExpired(started: TimeInterval, now: TimeInterval) -> Bool { now - started >= limit }

    /// Drops the pending check (the uploader is stopping).
    mutating func cancel() {
        timer?.cancel()
        timer = nil
    }
}

/// The request in flight: at most one per uploader, across resets too; what the watchdog
/// watches and the answer is matched against.
struct InFlightRequest {
    let attempt: Int
    /// When it left, or, with a format, when the format was asked to write it (until it reaches
    /// the transport: ``DepartureGate/leftAt``), in monotonic seconds.
    let started: TimeInterval
    let batch: PendingBatch
    /// Why the queue was dropped while this was in flight (a reset, a consent withdrawn): its
    /// answer only reports it, under that reason.
    var abandonedFor: DropReason?
    /// Whether the queue was dropped while this was in flight.
    var abandoned: Bool { abandonedFor != nil }
}
