import Foundation
import MetaRouterCore

/// A wire format over the durable delivery engine: how a batch becomes a request, and what the
/// host's answer means. A ``DurableDestination`` keeps everything else — the crash-safe disk
/// log, batching by count and bytes, one request at a time in order, retries with backoff and
/// the breaker, `Retry-After`, gzip (an option of the destination, not of the format) and the
/// `Trace` header. See `Docs/Destinations.md`.
///
/// Both requirements are called on a queue of the destination's own, one batch at a time, never
/// on the instance's executor: a slow format holds up its own deliveries, not the instance's
/// calls or its other destinations.
public protocol DeliveryFormat: Sendable {
    /// The request that delivers `batch`: URL, method, headers and the uncompressed body.
    ///
    /// - Parameter batch: The events to send, in order, and the batch's stable id.
    /// - Returns: The request; its timeout is replaced by the engine's.
    /// - Throws: When the batch cannot be written in this format; the batch is dropped, counted
    ///   (`rejected`) and logged with the error.
    func request(for batch: DeliveryBatch) throws -> DeliveryRequest
    /// What the host's answer means. A transport failure (no connection, a timeout) never
    /// reaches the format: the engine retries it.
    ///
    /// - Parameter response: The host's answer.
    /// - Returns: The verdict the engine acts on.
    func verdict(for response: DeliveryResponse) -> DeliveryVerdict
}

/// A request a ``DeliveryFormat`` builds.
public typealias DeliveryRequest = TransportRequest

/// A host's answer, as a ``DeliveryFormat`` reads it: header names are lowercased
/// (`header(_:)` looks one up in any case).
public typealias DeliveryResponse = TransportResponse

/// The events of one batch, as this SDK would send them, in order, and its id.
public struct DeliveryBatch: Sendable, Hashable {
    /// The events in the order they were tracked, each as this SDK's wire format writes it
    /// (`Docs/WireFormat.md`: `type`, `messageId`, `timestamp`, `sentAt`, `context`, …).
    public var events: [JSON]
    /// The batch's id: the same for every retry of this batch, across restarts too, for an
    /// idempotency header.
    public var id: String

    /// A batch of `events` under `id` (the engine makes them; a format's tests make their own).
    ///
    /// - Parameters:
    ///   - events: The events, in order.
    ///   - id: The batch's stable id.
    public init(events: [JSON], id: String) {
        self.events = events
        self.id = id
    }
}

/// What a ``DeliveryFormat`` makes of the host's answer to a batch.
public enum DeliveryVerdict: Sendable, Hashable {
    /// The host has the batch: it leaves the log.
    case delivered
    /// Keep the batch at the head and send it again after at least `after` seconds when the
    /// host said so (capped by the engine at 300 s), else after the engine's backoff; the
    /// breaker counts the failure.
    case retry(after: TimeInterval?)
    /// The batch is too large: it is halved and sent again; a single event that is too large is
    /// dropped (counted `tooLarge`).
    case split
    /// Drop this batch for good, counted (`rejected`) and logged with `reason`.
    case reject(reason: String)

    /// The engine's classification of this verdict for an answer with `status`.
    ///
    /// - Parameter status: The answer's HTTP status.
    /// - Returns: The classification the uploader acts on.
    package func classification(status: Int) -> ResponseVerdict {
        switch self {
        case .delivered: return .delivered
        case .retry(let after): return after.flatMap { $0.isNaN ? nil : .throttled(retryAfter: $0) } ?? .retry
        case .split: return .tooLarge
        case .reject(let reason): return .rejected(status: status, reason: reason)
        }
    }
}
