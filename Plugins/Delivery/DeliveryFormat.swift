import Foundation
import MetaRouterCore

/// A wire format over the durable delivery engine: how a batch becomes a request and what an
/// answer means. The engine keeps everything else — the queue or disk log, batching, retries
/// with backoff, the breaker, gzip (the engine's choice, not the format's) and the `Trace`
/// header. `package` until issue 65 makes it public.
package protocol DeliveryFormat: Sendable {
    /// The request that delivers `batch`: URL, method, headers and the uncompressed body.
    ///
    /// - Parameter batch: The events to send, in order, and the batch's stable id.
    /// - Returns: The request; its timeout is replaced by the engine's.
    /// - Throws: When the batch cannot be encoded; the engine drops it.
    func request(for batch: DeliveryBatch) throws -> TransportRequest
    /// What the host's answer means. A transport failure never reaches the format: the engine
    /// retries it.
    ///
    /// - Parameter response: The host's answer.
    /// - Returns: The verdict.
    func verdict(for response: TransportResponse) -> DeliveryVerdict
    /// The engine's classification of an outcome, with the transport failure the format never
    /// sees. The default retries failures and maps ``verdict(for:)``; a format that knows more
    /// (the MetaRouter format disables the client on 401, 403 and 404) replaces it.
    ///
    /// - Parameters:
    ///   - outcome: The answer, or the error that prevented one.
    ///   - now: The current time, for `Retry-After` dates.
    /// - Returns: The classification the uploader acts on.
    func classify(_ outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict
}

extension DeliveryFormat {
    /// Failures retry; answers map through ``verdict(for:)``.
    package func classify(_ outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict {
        guard case .success(let response) = outcome else { return .retry }
        return verdict(for: response).classification(status: response.status)
    }
}

/// The events of one batch, as this SDK would send them, in order, and its id.
package struct DeliveryBatch: Sendable, Hashable {
    /// The events, in order.
    package var events: [JSON]
    /// The batch's idempotency key: stable across retries and across reopening the disk log.
    package var id: String

    /// A batch of `events` under `id`.
    package init(events: [JSON], id: String) {
        self.events = events
        self.id = id
    }
}

/// What a format makes of the host's answer to a batch.
package enum DeliveryVerdict: Sendable, Hashable {
    /// The host has the batch.
    case delivered
    /// Keep the batch at the head and send it again, after at least `after` seconds when the
    /// host said so (the engine caps the wait), else after the engine's backoff.
    case retry(after: TimeInterval?)
    /// The batch is too large: halve it (a single event that is too large is dropped).
    case split
    /// Drop this batch for good, counted and logged with `reason`.
    case reject(reason: String)

    /// The engine's classification of this verdict for an answer with `status`.
    ///
    /// - Parameter status: The answer's HTTP status.
    /// - Returns: The classification the uploader acts on.
    package func classification(status: Int) -> ResponseVerdict {
        switch self {
        case .delivered: return .delivered
        case .retry(let after): return after.map { .throttled(retryAfter: $0) } ?? .retry
        case .split: return .tooLarge
        case .reject: return .rejected(status: status)
        }
    }
}
