import Foundation

/// When delivery may send again after an answer: the ``CircuitBreaker``, the short doubling
/// delay before it opens, a `Retry-After` held to its ceiling, and waits that are not the
/// host's fault (this process out of descriptors) and so leave the breaker alone. Times are
/// monotonic seconds (``AnalyticsClock/uptime()``). Confined to the uploader's executor.
struct RetryPlan {
    private(set) var breaker: CircuitBreaker
    private let initialDelay: TimeInterval
    private let longestDelay: TimeInterval
    private var delay: TimeInterval
    /// A wait for local resources was reported; cleared by any answer from the host.
    private var waitingForResources = false

    init(options: BatchUploader.Options, random: @escaping @Sendable () -> Double) {
        breaker = CircuitBreaker(policy: options.breaker, random: random)
        initialDelay = options.initialRetryDelay
        longestDelay = options.breaker.cooldown
        delay = options.initialRetryDelay
    }

    /// Whether a request may go at `now`; how long until one may, when not.
    mutating func allowsRequest(at now: TimeInterval) -> Bool { breaker.allowsRequest(at: now) }

    /// Seconds until the breaker lets a probe through.
    func remainingCooldown(at now: TimeInterval) -> TimeInterval { breaker.remainingCooldown(at: now) }

    /// The host answered in a way that says it is healthy: the breaker closes, delays start over.
    mutating func hostAnswered() {
        breaker.recordSuccess()
        delay = initialDelay
        waitingForResources = false
    }

    /// 5xx, 408, a network error: the wait before the retry — the doubling delay until the
    /// breaker opens, then its cooldown.
    mutating func hostFailed(at now: TimeInterval) -> TimeInterval {
        breaker.recordFailure(at: now)
        waitingForResources = false
        defer { delay = min(longestDelay, delay * 2) }
        return max(delay, breaker.remainingCooldown(at: now))
    }

    /// 429: the seed's rule, `max(Retry-After, breaker, 1 s)`, with `Retry-After` held to
    /// ``ResponseClassifier/retryAfterCeiling``; `asked` is what the host asked for when that
    /// was more.
    mutating func hostThrottled(retryAfter: TimeInterval?, at now: TimeInterval) -> (wait: TimeInterval, asked: TimeInterval?) {
        breaker.recordFailure(at: now)
        waitingForResources = false
        let asked = retryAfter ?? 0
        let ceiling = ResponseClassifier.retryAfterCeiling
        return (max(min(asked, ceiling), breaker.remainingCooldown(at: now), 1), asked > ceiling ? asked : nil)
    }

    /// The request never left this process: the doubling delay, the breaker untouched.
    /// `first` says whether this begins an episode (worth one log line).
    mutating func resourcesLacking() -> (wait: TimeInterval, first: Bool) {
        defer {
            waitingForResources = true
            delay = min(longestDelay, delay * 2)
        }
        return (delay, !waitingForResources)
    }

    /// The queue was reset: the next failure starts from the initial delay.
    mutating func restartDelay() { delay = initialDelay }
}
