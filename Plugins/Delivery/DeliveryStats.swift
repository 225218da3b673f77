import Foundation
import MetaRouterCore

/// Why events were dropped for good.
public enum DropReason: String, Sendable, Hashable, CaseIterable {
    /// The queue was full; the oldest was evicted.
    case queueFull
    /// The server rejected the batch (400, 422, other 4xx).
    case rejected
    /// A single event was larger than the server accepts (413 at batch size 1).
    case tooLarge
    /// The write key or endpoint was refused (401, 403, 404); the queue was cleared.
    case disabled
    /// `reset()` cleared the queue, or an in-flight batch, during a flush.
    case reset
    /// Dropped at the call: `maxPendingEvents` events were already waiting for the executor
    /// (callers outrunning the pipeline).
    case overflow
    /// Rejected in per-call identity mode for carrying neither a userId nor an anonymousId.
    case noIdentity
    /// Dropped because analytics consent was withdrawn.
    case consent
    /// Dropped by the tracking plan (block mode, or an unplanned event it blocks).
    case trackingPlan
}

/// Delivery counters, readable from any thread. The MetaRouter destination counts the delivery
/// reasons (`queueFull` to `reset`); `getDebugInfo().stats` adds the events the pipeline
/// dropped before delivery (`overflow` to `trackingPlan`), which never reach
/// `onPermanentFailure`.
public struct DeliveryStats: Sendable, Hashable {
    /// Events accepted into the queue.
    public var enqueued = 0
    /// Events the server accepted.
    public var sent = 0
    /// Batches sent again after a retryable failure.
    public var retries = 0
    /// Events dropped, by reason.
    public var dropped: [DropReason: Int] = [:]

    /// All dropped events.
    package var droppedTotal: Int { dropped.values.reduce(0, +) }

    /// Creates zeroed counters.
    package init() {}
}

/// Events dropped for good, reported to `onPermanentFailure`.
public struct PermanentFailure: Sendable {
    /// Why.
    public var reason: DropReason
    /// The HTTP status, when a response caused it.
    public var status: Int?
    /// The events as they were queued (encoded, without `sentAt`).
    package var payloads: [QueuedEvent]

    /// The events, as this SDK's wire format writes them (without `sentAt`), in order; read
    /// from the queued bytes when asked for. A record that no longer reads as JSON is left out.
    public var events: [JSON] { payloads.compactMap { try? JSONParser.parse($0.payload) } }

    /// Events dropped for `reason`.
    package init(reason: DropReason, status: Int?, payloads: [QueuedEvent]) {
        self.reason = reason
        self.status = status
        self.payloads = payloads
    }
}
