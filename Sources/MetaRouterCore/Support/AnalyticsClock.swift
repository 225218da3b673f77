import Dispatch
import Foundation

/// A scheduled piece of work that can be called off before it runs.
package protocol ScheduledWork: Sendable {
    /// Prevents the work from running if it has not started yet.
    func cancel()
}

/// The source of time for everything the SDK schedules: retry delays, the circuit breaker,
/// flush intervals. Tests inject `ManualClock` (in MetaRouterTesting) to run in milliseconds.
///
/// Two readings: ``now()`` is the wall clock, which stamps events and may jump either way when
/// the user or NTP sets it; ``uptime()`` only moves forward, at the pace of ``schedule(after:_:)``,
/// and is what every wait (retry delays, the breaker's cooldown, the request watchdog) measures.
package protocol AnalyticsClock: Sendable {
    /// The current wall-clock time.
    ///
    /// - Returns: The wall-clock time.
    func now() -> Date
    /// Seconds on a clock that never goes back and ignores changes to the wall clock, from an
    /// arbitrary origin.
    ///
    /// - Returns: Seconds since an arbitrary start, never going back.
    func uptime() -> TimeInterval
    /// Runs `work` once, `delay` seconds from now, on some thread of the clock's choosing.
    ///
    /// - Parameters:
    ///   - delay: Seconds to wait.
    ///   - work: What to run then, on any thread.
    /// - Returns: A handle that cancels it.
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork
}

/// Wall-clock time with Dispatch timers: no run loop or main queue needed, so it works in a
/// Linux server process.
package struct SystemClock: AnalyticsClock {
    private static let timerQueue = DispatchQueue(label: "io.metarouter.clock", qos: .utility)

    /// Creates the clock.
    package init() {}

    /// `Date()`.
    package func now() -> Date { Date() }

    /// Dispatch's monotonic clock, the one its timers run on.
    package func uptime() -> TimeInterval { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// A one-shot Dispatch timer on a utility queue, with a tenth of its delay (at most 1 s) of
    /// leeway. Cancelling it releases `work` at once (a cancelled `asyncAfter` work item would
    /// keep it, and what it captured, until its deadline).
    package func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        timer.setEventHandler {
            work()
            timer.cancel()
        }
        // Bounded before Dispatch converts it to nanoseconds (a NaN or a huge delay would trap).
        let seconds = delay.isNaN ? 0 : min(max(0, delay), 1e9)
        // The leeway lets the system fire it with other timers instead of waking for it alone.
        timer.schedule(deadline: .now() + seconds, leeway: .nanoseconds(Int(min(seconds / 10, 1) * 1e9)))
        timer.resume()
        return DispatchScheduledWork(timer: timer)
    }
}

private struct DispatchScheduledWork: ScheduledWork, @unchecked Sendable {  // DispatchSource.cancel is thread-safe
    let timer: any DispatchSourceTimer
    func cancel() { timer.cancel() }
}
