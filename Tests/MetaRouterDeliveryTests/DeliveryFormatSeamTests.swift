import Foundation
import MetaRouter
import Testing

/// The internal wire-format seam (issue 65): ``MetaRouterFormat`` states today's wire output and
/// answer table through ``DeliveryFormat``, byte for byte and row for row.
@Suite struct DeliveryFormatSeamTests {
    private let sentAt = Date(timeIntervalSince1970: 1_700_000_000.25)
    private let endpoint = URL(string: "http://127.0.0.1:9/v1/batch")!

    private func events() -> [Event] {
        (0..<3).map { Event(type: .track, timestamp: sentAt, event: "Event \($0)", properties: ["n": .int(Int64($0))]) }
    }

    @Test func theRequestForJSONEventsIsTodaysRequestByteForByte() throws {
        let legacy = MetaRouterBatchFormat(writeKey: "wk")
        let format = MetaRouterFormat(writeKey: "wk", endpoint: endpoint, now: { [sentAt] in sentAt })
        let packed = events().map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: legacy.encode($0)) }
        let json = try packed.map { try JSONParser.parse(Data($0.payload)) }
        let request = try format.request(for: DeliveryBatch(events: json, id: "batch-1"))
        #expect(request.body == legacy.body(for: packed, sentAt: sentAt))
        #expect(request == format.request(packed: packed, id: "batch-1", sentAt: sentAt))
        #expect(request.url == endpoint)
        #expect(request.method == "POST")
        var headers = legacy.headers
        headers["Idempotency-Key"] = "batch-1"
        #expect(request.headers == headers)
    }

    @Test func theVerdictsFollowTheStatusTable() {
        let format = MetaRouterFormat(writeKey: "wk", endpoint: endpoint)
        func answer(_ status: Int, _ headers: [String: String] = [:]) -> TransportResponse {
            TransportResponse(status: status, headers: headers, body: Data())
        }
        #expect(format.verdict(for: answer(200)) == .delivered)
        #expect(format.verdict(for: answer(204)) == .delivered)
        #expect(format.verdict(for: answer(500)) == .retry(after: nil))
        #expect(format.verdict(for: answer(408)) == .retry(after: nil))
        #expect(format.verdict(for: answer(429, ["retry-after": "7"])) == .retry(after: 7))
        #expect(format.verdict(for: answer(413)) == .split)
        #expect(format.verdict(for: answer(400)) == .reject(reason: "status 400"))
        for status in [200, 401, 403, 404, 408, 413, 422, 429, 500, 503] {
            let outcome = Result<TransportResponse, any Error>.success(answer(status, ["retry-after": "3"]))
            #expect(format.classify(outcome, now: sentAt) == ResponseClassifier.verdict(for: outcome, now: sentAt))
        }
        #expect(format.classify(.failure(URLError(.timedOut)), now: sentAt) == .retry)
    }

    @Test func aFormatsVerdictMapsOntoTheEnginesClassification() {
        #expect(DeliveryVerdict.delivered.classification(status: 200) == .delivered)
        #expect(DeliveryVerdict.retry(after: nil).classification(status: 503) == .retry)
        #expect(DeliveryVerdict.retry(after: 2).classification(status: 429) == .throttled(retryAfter: 2))
        #expect(DeliveryVerdict.split.classification(status: 413) == .tooLarge)
        #expect(DeliveryVerdict.retry(after: .nan).classification(status: 429) == .retry, "NaN is no wait: the backoff applies")
        #expect(DeliveryVerdict.reject(reason: "bad").classification(status: 400) == .rejected(status: 400, reason: "bad"))
    }
}

/// A format that keeps the batch it was given.
private final class KeepingFormat: DeliveryFormat, @unchecked Sendable {  // written and read by one test's thread
    var batches: [DeliveryBatch] = []
    func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        batches.append(batch)
        return DeliveryRequest(url: URL(string: "http://127.0.0.1:9/")!, body: Data())
    }
    func verdict(for response: DeliveryResponse) -> DeliveryVerdict { .delivered }
}

@Suite struct FormatWireTests {
    /// The JSON a format gets is the same whether the events were queued by this process (kept
    /// as JSON) or read back from the log's bytes after a restart.
    @Test func eventsKeptInMemoryEqualEventsReadBack() throws {
        let events: [Event] = [
            Event(type: .track, anonymousId: "a", event: "Numbers", properties: ["whole": .double(1.0), "ratio": 0.25, "big": .uint(UInt64.max), "neg": -3]),
            Event(type: .identify, userId: "u", traits: ["email": "a@b.c", "nested": ["deep": [1, 2, ["x": .null]]]], context: ["ip": "203.0.113.7"]),
            Event(type: .screen, anonymousId: "a", name: "Home", properties: ["name": "Home", "unicode": "e\u{301} 🚀 \u{0}"]),
            Event(type: .alias, userId: "new", previousId: "old"),
            Event(type: .group, userId: "u", groupId: "g", traits: [:], integrations: ["All": false]),
        ]
        let sentAt = Date(timeIntervalSince1970: 1_700_000_000)
        let live = KeepingFormat(), restarted = KeepingFormat()
        let liveWire = FormatWire(format: live, writeKey: "wk")
        let queued = events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: liveWire.encode($0)) }
        _ = try liveWire.request(packed: queued, id: "b1", sentAt: sentAt)
        _ = try FormatWire(format: restarted, writeKey: "wk").request(packed: queued, id: "b1", sentAt: sentAt)
        let kept = try #require(live.batches.first), readBack = try #require(restarted.batches.first)
        #expect(kept.events.count == events.count)
        for (one, other) in zip(kept.events, readBack.events) { #expect(one.description == other.description) }
        #expect(kept.events.allSatisfy { $0["writeKey"] == "wk" && $0["sentAt"] == "2023-11-14T22:13:20.000Z" })
    }

    /// Batches taken from the head in queue order, a retry, a batch after events left the queue
    /// and one led by an event recovered from the log each get every event, in order.
    @Test func batchesFromTheHeadUseTheKeptEvents() throws {
        let format = KeepingFormat()
        let wire = FormatWire(format: format, writeKey: "wk")
        let events = (0..<10).map { Event(type: .track, anonymousId: "a", event: "E", properties: ["n": .int(Int64($0)), "whole": .double(1.0)]) }
        let queued = events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: wire.encode($0)) }
        let sentAt = Date()
        _ = try wire.request(packed: Array(queued[0..<3]), id: "1", sentAt: sentAt)
        _ = try wire.request(packed: Array(queued[0..<3]), id: "1", sentAt: sentAt)
        _ = try wire.request(packed: Array(queued[5..<8]), id: "2", sentAt: sentAt)
        let stranger = Event(type: .track, anonymousId: "a", event: "E", properties: ["n": 99, "whole": .double(1.0)])
        let recovered = QueuedEvent(messageId: stranger.messageId, timestamp: stranger.timestamp, payload: MetaRouterBatchFormat(writeKey: "wk").encode(stranger))
        _ = try wire.request(packed: [recovered] + Array(queued[8..<10]), id: "3", sentAt: sentAt)
        let numbers = format.batches.map { $0.events.compactMap { $0["properties"]?["n"]?.int64Value } }
        #expect(numbers == [[0, 1, 2], [0, 1, 2], [5, 6, 7], [99, 8, 9]])
    }
}
