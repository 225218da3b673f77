import Foundation
import Logging
import Synchronization

/// Refusals counted by reason, and the events their requests dropped, with one log line per
/// ``interval`` at most however many arrive: a stranger's flood of keys costs a counter each,
/// not a line each.
final class TenantRefusals: Sendable {
    private struct State {
        var counts: [TenantRefusal: Int] = [:]
        var droppedEvents = 0
        var unlogged = 0
        var lastLogged: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let logger: Logger?
    let interval: Duration

    init(logger: Logger?, interval: Duration = .seconds(10)) {
        self.logger = logger
        self.interval = interval
    }

    /// Counts `refusal` of `writeKey`, and logs it unless a line was logged in the last
    /// ``interval`` (the next line then says how many were left out).
    func record(_ refusal: TenantRefusal, writeKey: String) {
        let now = ContinuousClock.now
        let line: (count: Int, since: Int)? = state.withLock { state in
            state.counts[refusal, default: 0] += 1
            if let last = state.lastLogged, now - last < interval {
                state.unlogged += 1
                return nil
            }
            defer {
                state.lastLogged = now
                state.unlogged = 0
            }
            return (state.counts[refusal, default: 0], state.unlogged)
        }
        guard let line, let logger else { return }
        logger.warning(
            "analytics: request for a tenant that is not admitted; its events are dropped",
            metadata: [
                "reason": .string(refusal.description), "tenant": .string(Self.mask(writeKey)),
                "refused_total": .stringConvertible(line.count), "not_logged_since_last": .stringConvertible(line.since),
            ])
    }

    /// Counts an event dropped because its request's tenant was refused.
    func droppedEvent() {
        state.withLock { $0.droppedEvents += 1 }
    }

    /// Refusals so far by reason, and the events dropped with them.
    var snapshot: (refusals: [TenantRefusal: Int], droppedEvents: Int) {
        state.withLock { ($0.counts, $0.droppedEvents) }
    }

    /// At most the last 4 characters of a stranger's key, and never more than 4 of its length.
    static func mask(_ writeKey: String) -> String {
        let printable = writeKey.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }
        guard printable, writeKey.count > 4, writeKey.count <= 256 else { return "****" }
        return "****" + writeKey.suffix(4)
    }
}
