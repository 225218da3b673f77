import Foundation
import MetaRouterCore

/// Decides when queued events are flushed, besides explicit `flush()` calls (which always
/// flush). Policies run on the destination's executor.
package protocol FlushPolicy: AnyObject {
    /// Starts the policy; `flush` asks the destination to flush (from any thread).
    func start(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void)
    /// Whether `queued` events warrant a flush now.
    func shouldFlush(queued: Int) -> Bool
    /// Stops timers.
    func stop()
}

extension FlushPolicy {
    /// Starts nothing.
    package func start(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void) {}
    /// Never by count.
    package func shouldFlush(queued: Int) -> Bool { false }
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

/// Flushes every `seconds`, on the injected clock (no run loop needed).
package final class IntervalFlushPolicy: FlushPolicy, Sendable {
    private struct Timer {
        var work: (any ScheduledWork)?
        var running = false
    }

    private let interval: TimeInterval
    private let timer = Locked(Timer())

    /// Flushes every `seconds` (at least 0.01).
    package init(seconds: TimeInterval = TimeInterval(Defaults.flushIntervalSeconds)) { interval = max(0.01, seconds) }

    /// Arms a repeating timer.
    package func start(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void) {
        timer.withLock { $0.running = true }
        arm(clock: clock, flush: flush)
    }

    private func arm(clock: any AnalyticsClock, flush: @escaping @Sendable () -> Void) {
        timer.withLock { state in
            guard state.running else { return }
            state.work?.cancel()
            state.work = clock.schedule(after: interval) { [weak self] in
                guard let self, self.timer.current.running else { return }
                flush()
                self.arm(clock: clock, flush: flush)
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
