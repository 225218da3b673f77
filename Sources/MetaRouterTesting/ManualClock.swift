import Foundation
import MetaRouterCore

/// A clock that moves only when told: `advance(by:)` runs the work that falls due, in order,
/// on the calling thread. Retry delays, breaker cooldowns and flush intervals then take
/// microseconds in tests. ``moveWallClock(by:)`` moves only the wall clock, as a user changing
/// the device's time does: nothing scheduled runs and ``uptime()`` stays where it is.
package final class ManualClock: AnalyticsClock {
    private struct Entry {
        let id: Int
        let due: TimeInterval
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        /// Seconds advanced since the clock was made; the schedule runs on it.
        var uptime: TimeInterval = 0
        /// What the wall clock reads beyond `now`, after jumps.
        var wallOffset: TimeInterval = 0
        var nextId = 0
        var entries: [Entry] = []
        var cancelled: Set<Int> = []

        /// Both readings move forward together to `target` (never back).
        mutating func moveTo(uptime target: TimeInterval) {
            guard target > uptime else { return }
            now = now.addingTimeInterval(target - uptime)
            uptime = target
        }
    }

    private let state: Locked<State>
    private let boot = UUID().uuidString

    /// A clock reading `start`.
    ///
    /// - Parameter start: The wall-clock time it starts at.
    package init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Locked(State(now: start))
    }

    /// The current wall-clock reading.
    ///
    /// - Returns: The clock's wall-clock time.
    package func now() -> Date { state.withLock { $0.now.addingTimeInterval($0.wallOffset) } }

    /// Seconds advanced since the clock was made: wall-clock jumps do not move it.
    ///
    /// - Returns: Seconds advanced so far.
    package func uptime() -> TimeInterval { state.withLock { $0.uptime } }

    /// Moves the wall clock by `seconds` (back when negative) without running anything or
    /// moving ``uptime()``.
    package func moveWallClock(by seconds: TimeInterval) {
        state.withLock { $0.wallOffset += seconds }
    }

    /// Work scheduled and not yet run or cancelled, with the delay left for each (seconds).
    package var pendingDelays: [TimeInterval] {
        state.withLock { state in
            state.entries.filter { !state.cancelled.contains($0.id) }.map { $0.due - state.uptime }.sorted()
        }
    }

    /// Keeps `work` until the clock reaches now + `delay`.
    ///
    /// - Parameters:
    ///   - delay: Seconds of advancing before `work` runs.
    ///   - work: What to run.
    /// - Returns: A handle that cancels it.
    package func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            state.entries.append(Entry(id: state.nextId, due: state.uptime + max(0, delay.isNaN ? 0 : delay), work: work))
            return state.nextId
        }
        return ManualWork { [weak self] in self?.state.withLock { _ = $0.cancelled.insert(id) } }
    }

    /// Moves the clock forward by `seconds`, running each piece of work as its time comes.
    ///
    /// - Parameter seconds: How far to move; due work runs in order.
    package func advance(by seconds: TimeInterval) {
        let target = state.withLock { $0.uptime + max(0, seconds) }
        while let entry = takeNextDue(before: target) {
            entry.work()
        }
        state.withLock { $0.moveTo(uptime: target) }
    }

    private func takeNextDue(before target: TimeInterval) -> Entry? {
        state.withLock { state in
            state.entries.removeAll { state.cancelled.contains($0.id) }
            guard let index = state.entries.indices.min(by: { state.entries[$0].due < state.entries[$1].due }),
                state.entries[index].due <= target
            else { return nil }
            let entry = state.entries.remove(at: index)
            state.moveTo(uptime: entry.due)
            return entry
        }
    }
}

private struct ManualWork: ScheduledWork {
    let onCancel: @Sendable () -> Void
    func cancel() { onCancel() }
}

extension ManualClock: BootSessionClock {
    /// One boot per clock: a log reopened with the same clock is on the same boot, one opened
    /// with another clock is after a restart of the device.
    package var bootSession: String? { boot }
}
