import Foundation
import MetaRouterCore

/// A clock that moves only when told: `advance(by:)` runs the work that falls due, in order,
/// on the calling thread. Retry delays, breaker cooldowns and flush intervals then take
/// microseconds in tests.
public final class ManualClock: AnalyticsClock {
    private struct Entry {
        let id: Int
        let due: Date
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var nextId = 0
        var entries: [Entry] = []
        var cancelled: Set<Int> = []
    }

    private let state: Locked<State>

    /// A clock reading `start`.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Locked(State(now: start))
    }

    /// The current reading.
    public func now() -> Date { state.withLock { $0.now } }

    /// Work scheduled and not yet run or cancelled, with the delay left for each (seconds).
    public var pendingDelays: [TimeInterval] {
        state.withLock { state in
            state.entries.filter { !state.cancelled.contains($0.id) }.map { $0.due.timeIntervalSince(state.now) }.sorted()
        }
    }

    /// Keeps `work` until the clock reaches now + `delay`.
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            state.entries.append(Entry(id: state.nextId, due: state.now.addingTimeInterval(max(0, delay)), work: work))
            return state.nextId
        }
        return ManualWork { [weak self] in self?.state.withLock { _ = $0.cancelled.insert(id) } }
    }

    /// Moves the clock forward by `seconds`, running each piece of work as its time comes.
    public func advance(by seconds: TimeInterval) {
        let target = state.withLock { $0.now.addingTimeInterval(seconds) }
        while let entry = takeNextDue(before: target) {
            entry.work()
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    private func takeNextDue(before target: Date) -> Entry? {
        state.withLock { state in
            state.entries.removeAll { state.cancelled.contains($0.id) }
            guard let index = state.entries.indices.min(by: { state.entries[$0].due < state.entries[$1].due }),
                state.entries[index].due <= target
            else { return nil }
            let entry = state.entries.remove(at: index)
            state.now = max(state.now, entry.due)
            return entry
        }
    }
}

private struct ManualWork: ScheduledWork {
    let onCancel: @Sendable () -> Void
    func cancel() { onCancel() }
}
