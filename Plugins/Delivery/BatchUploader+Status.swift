import Foundation
import MetaRouterCore

extension BatchUploader {
    /// A snapshot for `getDebugInfo`.
    package struct Status: Sendable, Hashable {
        /// Events queued, the pending batch included.
        package var queueLength: Int
        /// The breaker's state.
        package var circuitState: CircuitState
        /// Milliseconds until the breaker lets a probe through.
        package var circuitRemainingMs: Int
        /// Whether a request is in flight.
        package var flushInFlight: Bool
        /// The current batch size (halved by 413s).
        package var maxBatchSize: Int
        /// Whether the server refused the write key or endpoint.
        package var disabled: Bool
    }

    /// Queued events that are not on disk: all of them for a memory-only store, those a
    /// faulted disk log could not write for ``DiskEventStore``.
    package var undurableEvents: Int {
        (store as? DiskEventStore)?.undurableCount ?? store.count
    }

    /// File descriptors delivery holds: the disk log's lock and open segments. (Connections
    /// belong to the process's pool, which every instance shares.)
    package var openDescriptors: Int {
        (store as? DiskEventStore)?.openDescriptors ?? 0
    }

    /// The state for `getDebugInfo`.
    package func status() -> Status {
        let now = analytics?.configuration.clock.uptime() ?? 0
        return Status(
            queueLength: store.count, circuitState: retries.breaker.state,
            circuitRemainingMs: Int((retries.remainingCooldown(at: now) * 1000).rounded(.up)),
            flushInFlight: inFlight != nil, maxBatchSize: batchSize, disabled: disabled)
    }
}
