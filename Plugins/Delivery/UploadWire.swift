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
    /// Whether ``request(packed:id:sentAt:)`` and ``classify(_:now:)`` of an answer are called
    /// off the executor, on a queue of the uploader's own: for a format of the integrator's,
    /// whose time the SDK cannot bound.
    var runsOffExecutor: Bool { get }
}

/// Any ``DeliveryFormat`` as the uploader's wire: events are queued as this SDK's wire format
/// writes them, and handed to the format as ``JSON`` with `sentAt` when a batch leaves — from
/// ``RecentEvents`` when this process queued them (no re-parse), read back from the queued
/// bytes otherwise (after a restart).
package struct FormatWire: UploadWire {
    private let format: any DeliveryFormat
    private let encoder: MetaRouterBatchFormat
    private let writeKey: JSON
    private let recent = RecentEvents()

    /// The wire for `format`, writing `writeKey` into each event as the SDK's format does
    /// (sharing the bytes of an event the instance's other destinations encoded, with `shared`).
    package init(format: any DeliveryFormat, writeKey: String, shared: LastEncodedEvent? = nil) {
        self.format = format
        encoder = MetaRouterBatchFormat(writeKey: writeKey, shared: shared)
        self.writeKey = .string(writeKey)
    }

    /// The event as the SDK's wire format writes it, without `sentAt`; the event is kept for
    /// the request.
    package func encode(_ event: Event) -> [UInt8] {
        let bytes = encoder.encode(event)
        recent.keep(event, size: bytes.count)
        return bytes
    }

    /// The format's request for the events, each stamped with `sentAt`. A record that does not
    /// read back (never seen: the log checks every record) is left out.
    package func request(packed events: [QueuedEvent], id: String, sentAt: Date) throws -> TransportRequest {
        let stamp = JSON.string(Timestamp.string(from: sentAt))
        let kept = recent.events(for: events)
        let batch = zip(events, kept).compactMap { queued, kept -> JSON? in
            var members: [String: JSON]
            if let kept {
                members = kept.jsonObject()
                members["writeKey"] = writeKey
            } else {
                guard let read = (try? JSONParser.parse(queued.payload))?.objectValue else { return nil }
                members = read
            }
            members["sentAt"] = stamp
            return .object(members)
        }
        let request = try format.request(for: DeliveryBatch(events: batch, id: id))
        // A URL no transport can reach would fail as a network error and be retried for ever,
        // holding every later batch: it is the format's mistake, and drops its batch instead.
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https", request.url.host?.isEmpty == false else {
            throw UnsendableRequest(url: request.url.absoluteString)
        }
        return request
    }

    /// Failures retry; answers map through the format's verdict.
    package func classify(_ outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict {
        guard case .success(let response) = outcome else { return .retry }
        return format.verdict(for: response).classification(status: response.status)
    }

    /// A format's body may carry the batch's id: never prepared ahead.
    package func bodyAhead(for events: [QueuedEvent], sentAt: Date) -> Data? { nil }

    /// A format runs off the executor: a slow one holds up its own destination, not the
    /// instance. (Both touch only the format, which is `Sendable`, and ``RecentEvents``, which
    /// is locked.)
    package var runsOffExecutor: Bool { true }
}

/// The events this process queued most recently, in the order they were queued.
/// The queue is first in, first out, so a batch is a run of these from the head: a request
/// walks them in step with its events — no hashing, no re-parse — and drops the ones before
/// its first event (delivered, dropped or evicted by then). Bounded by count and by the events'
/// encoded bytes, the oldest going first; an event not found here (recovered from the log, or
/// with a replayed messageId whose encoded size differs) is read back from its bytes.
final class RecentEvents: Sendable {
    private static let maxCount = 4_096
    private static let maxBytes = 4 << 20
    private struct Kept {
        let size: Int
        let event: Event
    }
    private struct State {
        var kept: [Kept] = []
        var head = 0
        var bytes = 0

        mutating func dropFront(to index: Int) {
            while head < index {
                bytes -= kept[head].size
                head += 1
            }
            if head > 1_024, head * 2 > kept.count {
                kept.removeFirst(head)
                head = 0
            }
        }
    }
    private let state = Locked(State())

    func keep(_ event: Event, size: Int) {
        state.withLock { state in
            state.kept.append(Kept(size: size, event: event))
            state.bytes += size
            let tooMany = state.kept.count - state.head - Self.maxCount
            if tooMany > 0 { state.dropFront(to: state.head + tooMany) }
            while state.bytes > Self.maxBytes, state.head < state.kept.count { state.dropFront(to: state.head + 1) }
        }
    }

    /// The kept events of `events`, in their order (`nil` where an event is not kept).
    func events(for events: [QueuedEvent]) -> [Event?] {
        state.withLock { state in
            guard let first = events.first,
                let start = state.kept[state.head...].firstIndex(where: { $0.event.messageId == first.messageId })
            else { return Array(repeating: nil, count: events.count) }
            state.dropFront(to: start)
            var cursor = state.head
            return events.map { event in
                guard cursor < state.kept.count, state.kept[cursor].event.messageId == event.messageId, state.kept[cursor].size == event.payload.count
                else { return nil }
                cursor += 1
                return state.kept[cursor - 1].event
            }
        }
    }
}

/// A format's `request(for:)` threw off the executor: brought back to it as the attempt's
/// outcome, which drops the batch as a format's mistake.
struct UnwritableBatch: Error {
    let error: any Error
}

/// A format's request whose URL is not an http(s) URL with a host.
struct UnsendableRequest: Error, CustomStringConvertible {
    let url: String
    var description: String { "the request's URL is not an http(s) URL with a host: \(url.prefix(200))" }
}
