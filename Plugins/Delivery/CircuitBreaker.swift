import Foundation

/// The breaker's state, as `getDebugInfo` reports it.
public enum CircuitState: String, Sendable {
    /// Sending normally.
    case closed
    /// Cooling down; nothing is sent.
    case open
    /// One probe allowed.
    case halfOpen
}

/// The circuit breaker around uploads, as the seed's delivery table describes: after
/// `failureThreshold` consecutive failures it opens for a cooldown (with jitter); after the
/// cooldown one probe is let through (half-open); the probe's success closes it, its failure
/// reopens it with the cooldown doubled up to `maxCooldown`.
///
/// Times are readings of a monotonic clock (``AnalyticsClock/uptime()``), so a wall clock set
/// back or forward neither holds the breaker open nor ends its cooldown early.
package struct CircuitBreaker: Sendable {
    package typealias State = CircuitState

    /// The breaker's tuning.
    package struct Policy: Sendable, Hashable {
        /// Consecutive failures that open the breaker.
        package var failureThreshold = 3
        /// First cooldown, in seconds.
        package var cooldown: TimeInterval = 10
        /// Longest cooldown, in seconds.
        package var maxCooldown: TimeInterval = 120
        /// Fraction of random spread on each cooldown (0.2 = ±20 %).
        package var jitter = 0.2

        /// The seed's defaults: 3 failures, 10 s doubling to 120 s, ±20 %.
        package init() {}
    }

    /// The tuning.
    package let policy: Policy
    /// The current state.
    package private(set) var state = State.closed
    /// Failures since the last success.
    package private(set) var consecutiveFailures = 0
    private var nextCooldown: TimeInterval
    private var openUntil: TimeInterval?
    private let random: @Sendable () -> Double

    /// A closed breaker. `random` returns values in `-1...1` that scale the jitter.
    package init(policy: Policy = Policy(), random: @escaping @Sendable () -> Double = { Double.random(in: -1...1) }) {
        self.policy = policy
        self.random = random
        nextCooldown = policy.cooldown
    }

    /// Whether a request may go at `now` (monotonic seconds); an expired cooldown turns the
    /// breaker half-open.
    package mutating func allowsRequest(at now: TimeInterval) -> Bool {
        switch state {
        case .closed, .halfOpen:
            return true
        case .open:
            guard let openUntil, now >= openUntil else { return false }
            state = .halfOpen
            return true
        }
    }

    /// Seconds until the breaker lets a probe through (0 unless open), at `now` (monotonic
    /// seconds).
    package func remainingCooldown(at now: TimeInterval) -> TimeInterval {
        guard state == .open, let openUntil else { return 0 }
        return max(0, openUntil - now)
    }

    /// A request succeeded (or was answered in a way that says the server is healthy).
    package mutating func recordSuccess() {
        state = .closed
        consecutiveFailures = 0
        nextCooldown = policy.cooldown
        openUntil = nil
    }

    /// A request failed, at `now` (monotonic seconds), in a way that says the server is
    /// unhealthy.
    package mutating func recordFailure(at now: TimeInterval) {
        consecutiveFailures += 1
        guard state == .halfOpen || consecutiveFailures >= policy.failureThreshold else { return }
        let spread = 1 + policy.jitter * max(-1, min(1, random()))
        openUntil = now + nextCooldown * spread
        state = .open
        nextCooldown = min(policy.maxCooldown, nextCooldown * 2)
    }
}
