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
        #expect(DeliveryVerdict.reject(reason: "bad").classification(status: 400) == .rejected(status: 400, reason: "bad"))
    }
}
