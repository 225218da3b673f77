import Foundation
import MetaRouterCore

/// Decides when queued events are flushed, besides explicit `flush()` calls (which always
/// flush). Policies run on the destination's executor.
package protocol FlushPolicy: AnyObject {
    /// Starts the policy; `flush` asks the destination to flush (from any thread).
    func start(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void)
    /// Whether `queued` events warrant a flush now.
    func shouldFlush(queued: Int) -> Bool
    /// Events are waiting and no flush has been asked for since they came: a timed policy arms
    /// its timer now (called on the executor, once until the policy's next flush).
    func eventsWaiting()
    /// Stops timers.
    func stop()
}

extension FlushPolicy {
    /// Starts nothing.
    package func start(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void) {}
    /// Never by count.
    package func shouldFlush(queued: Int) -> Bool { false }
    /// Arms nothing.
    package func eventsWaiting() {}
    /// Stops nothing.
    package func stop() {}
}

/// Flushes once `count` events are queued.
package final class CountFlushPolicy: FlushPolicy {
    private let threshold: Int

    /// Flushes at `count` queued events (at least 1).
    package init(count: Int = Defaults.flushAt) { threshold = max(1, count) }

    /// `queued >= count`.
    package func shouldFlush(queued: Int) -> Bool { queued >= threshold }
}

/// Flushes `seconds` after events start waiting, on the injected clock (no run loop needed).
/// The timer runs only while there is something to send: armed when the first event arrives
/// after a flush, it fires once, and the next event arms it again. An idle instance has no
/// timer at all.
package final class IntervalFlushPolicy: FlushPolicy, Sendable {
    private struct Timer {
        var work: (any ScheduledWork)?
        var running = false
        var clock: (any AnalyticsClock)?
        var flush: (@Sendable () -> Void)?
    }

    private let interval: TimeInterval
    private let timer = Locked(Timer())

    /// Flushes `seconds` after events start waiting (at least 0.01).
    package init(seconds: TimeInterval = TimeInterval(Defaults.flushIntervalSeconds)) { interval = max(0.01, seconds) }

    /// Lets ``eventsWaiting()`` arm the timer.
    package func start(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void) {
        timer.withLock { state in
            state.running = true
            state.clock = clock
            state.flush = flush
        }
    }

    /// Arms the one-shot timer unless it is armed or the policy is stopped.
    package func eventsWaiting() {
        timer.withLock { state in
            guard state.running, state.work == nil, let clock = state.clock, let flush = state.flush else { return }
            state.work = clock.schedule(after: interval) { [weak self] in
                guard let self else { return }
                let running = self.timer.withLock { state in
                    state.work = nil
                    return state.running
                }
                if running { flush() }
            }
        }
    }

    /// Cancels the timer.
    package func stop() {
        timer.withLock { state in
            state.running = false
            state.work?.cancel()
            state.work = nil
        }
    }
}
