import Foundation
import MetaRouterCore

/// What the uploader sends through: how an event is queued, how queued events become a
/// request, and what an outcome means. ``MetaRouterFormat`` is one (packed bodies, the seed's
/// status table); ``FormatWire`` puts any ``DeliveryFormat`` behind the same engine.
package protocol UploadWire: Sendable {
    /// The event as the queue and the disk log keep it.
    func encode(_ event: Event) -> [UInt8]
    /// The request for queued events, in order, under the batch's id.
    func request(packed events: [QueuedEvent], id: String, sentAt: Date) throws -> TransportRequest
    /// The classification of an answer, or of the failure that prevented one.
    func classify(_ outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict
    /// The body ``request(packed:id:sentAt:)`` would carry, when it depends on nothing but the
    /// events and `sentAt` (then gzip compresses it ahead, while the batch before is in flight);
    /// `nil` when it may depend on more.
    func bodyAhead(for events: [QueuedEvent], sentAt: Date) -> Data?
}

/// Any ``DeliveryFormat`` as the uploader's wire: events are queued as this SDK's wire format
/// writes them, and read back into ``JSON`` with `sentAt` when a batch leaves.
package struct FormatWire: UploadWire {
    private let format: any DeliveryFormat
    private let encoder: MetaRouterBatchFormat

    /// The wire for `format`, writing `writeKey` into each event as the SDK's format does.
    package init(format: any DeliveryFormat, writeKey: String) {
        self.format = format
        encoder = MetaRouterBatchFormat(writeKey: writeKey)
    }

    /// The event as the SDK's wire format writes it, without `sentAt`.
    package func encode(_ event: Event) -> [UInt8] { encoder.encode(event) }

    /// The format's request for the events, each read back and stamped with `sentAt`. A record
    /// that does not read back (never seen: the log checks every record) is left out.
    package func request(packed events: [QueuedEvent], id: String, sentAt: Date) throws -> TransportRequest {
        let stamp = JSON.string(Timestamp.string(from: sentAt))
        let batch = events.compactMap { queued -> JSON? in
            guard case .object(var members)? = try? JSONParser.parse(queued.payload) else { return nil }
            members["sentAt"] = stamp
            return .object(members)
        }
        return try format.request(for: DeliveryBatch(events: batch, id: id))
    }

    /// Failures retry; answers map through the format's verdict.
    package func classify(_ outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict {
        guard case .success(let response) = outcome else { return .retry }
        return format.verdict(for: response).classification(status: response.status)
    }

    /// A format's body may carry the batch's id: never prepared ahead.
    package func bodyAhead(for events: [QueuedEvent], sentAt: Date) -> Data? { nil }
}
