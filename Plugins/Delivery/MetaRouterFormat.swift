import Foundation
import MetaRouterCore

/// MetaRouter's wire format as a ``DeliveryFormat``: the body of ``MetaRouterBatchFormat``
/// (`{"batch":[…]}`, `sentAt` stamped last in each event), its headers with `Idempotency-Key`
/// set to the batch's id, POST to the ingestion endpoint, and ``ResponseClassifier``'s table
/// for the answers. The uploader's hot path keeps using the packed payloads of
/// ``MetaRouterBatchFormat`` through ``request(packed:id:sentAt:)``; ``request(for:)`` states the
/// same format over `[JSON]` events. A destination with a packed encoder of its own
/// (``init(packing:endpoint:now:)``) gets the same headers and answer table over its body.
package struct MetaRouterFormat: DeliveryFormat, UploadWire {
    /// The packed-payload encoder whose output this format reproduces.
    package let batchFormat: any BatchFormat
    /// Where batches are posted.
    package let endpoint: URL
    private let now: @Sendable () -> Date

    /// The format for `writeKey`, posting to `endpoint`, stamping `sentAt` from `now`.
    ///
    /// - Parameters:
    ///   - writeKey: The source's write key, written into every event.
    ///   - endpoint: The batch endpoint.
    ///   - now: The clock `sentAt` is read from.
    package init(writeKey: String, endpoint: URL, shared: LastEncodedEvent? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(packing: MetaRouterBatchFormat(writeKey: writeKey, shared: shared), endpoint: endpoint, now: now)
    }

    /// The format over `batchFormat`'s bodies and headers, posting to `endpoint`.
    ///
    /// - Parameters:
    ///   - batchFormat: Encodes events and bodies.
    ///   - endpoint: The batch endpoint.
    ///   - now: The clock `sentAt` is read from.
    package init(packing batchFormat: any BatchFormat, endpoint: URL, now: @escaping @Sendable () -> Date = { Date() }) {
        self.batchFormat = batchFormat
        self.endpoint = endpoint
        self.now = now
    }

    /// POST `{"batch":[…]}` with the format's headers and `Idempotency-Key: <batch id>`. Events
    /// are written with their keys sorted, as the packed payloads are.
    package func request(for batch: DeliveryBatch) throws -> TransportRequest {
        let events = batch.events.map { QueuedEvent(messageId: "", timestamp: .distantPast, payload: JSONWriter.bytes($0)) }
        return request(packed: events, id: batch.id, sentAt: now())
    }

    /// The request for events already encoded by ``batchFormat`` — what the uploader sends.
    ///
    /// - Parameters:
    ///   - events: The encoded events, in order.
    ///   - id: The batch's idempotency key.
    ///   - sentAt: When the request leaves.
    /// - Returns: The request, with the default timeout.
    package func request(packed events: [QueuedEvent], id: String, sentAt: Date) -> TransportRequest {
        var headers = batchFormat.headers
        headers["Idempotency-Key"] = id
        return TransportRequest(
            url: endpoint, headers: headers, body: batchFormat.body(for: events, sentAt: sentAt),
            timeout: Defaults.requestTimeoutSeconds)
    }

    /// ``ResponseClassifier``'s table, in a format's terms: 401, 403 and 404, which disable the
    /// client, are rejections here; ``classify(_:now:)`` keeps them apart.
    package func verdict(for response: TransportResponse) -> DeliveryVerdict {
        switch ResponseClassifier.verdict(for: .success(response), now: now()) {
        case .delivered: return .delivered
        case .retry: return .retry(after: nil)
        case .throttled(let retryAfter): return .retry(after: retryAfter)
        case .tooLarge: return .split
        case .rejected(let status, _), .fatal(let status): return .reject(reason: "status \(status)")
        }
    }

    /// The event as ``batchFormat`` encodes it.
    package func encode(_ event: Event) -> [UInt8] { batchFormat.encode(event) }

    /// ``batchFormat``'s body: it depends only on the events and `sentAt`.
    package func bodyAhead(for events: [QueuedEvent], sentAt: Date) -> Data? { batchFormat.body(for: events, sentAt: sentAt) }

    /// The built-in body is the queued bytes joined, the answers read by the seed's table: both
    /// on the executor.
    package var runsOffExecutor: Bool { false }

    /// Exactly ``ResponseClassifier/verdict(for:now:)``.
    package func classify(_ outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict {
        ResponseClassifier.verdict(for: outcome, now: now)
    }
}
