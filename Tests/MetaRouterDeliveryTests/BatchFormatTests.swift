import Foundation
import MetaRouter
import Testing

/// The request body, byte for byte: each queued payload with `sentAt` written in place of its
/// closing brace, in order, inside `{"batch":[…]}`.
@Suite struct BatchFormatTests {
    private let sentAt = Date(timeIntervalSince1970: 1_700_000_000.25)

    private func queued(_ text: String) -> QueuedEvent {
        QueuedEvent(messageId: UUID().uuidString, timestamp: sentAt, payload: Array(text.utf8))
    }

    @Test func stampsEveryEventInOrder() throws {
        let format = MetaRouterBatchFormat(writeKey: "wk")
        let body = format.body(for: [queued(#"{"a":1}"#), queued(#"{"b":"x,}"}"#), queued(#"{}"#)], sentAt: sentAt)
        let stamp = #""sentAt":"2023-11-14T22:13:20.250Z"}"#
        #expect(String(decoding: body, as: UTF8.self)
            == #"{"batch":[{"a":1,"# + stamp + #",{"b":"x,}","# + stamp + #",{"# + stamp + "]}")
        #expect(try JSONParser.parse(body)["batch"]?.arrayValue?.count == 3, "the body is JSON")
        #expect(format.body(for: [], sentAt: sentAt) == Data(#"{"batch":[]}"#.utf8))
    }

    @Test func aBatchOfFiveHundredEncodedEventsReadsBack() throws {
        let format = MetaRouterBatchFormat(writeKey: "wk")
        let events = (0..<500).map { index in
            Event(type: .track, timestamp: sentAt, event: "Event \(index)", properties: ["n": .int(Int64(index))])
        }
        let body = format.body(for: events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: format.encode($0)) }, sentAt: sentAt)
        let batch = try #require(try JSONParser.parse(body)["batch"]?.arrayValue)
        #expect(batch.count == 500)
        #expect(batch.map { $0["properties"]?["n"]?.int64Value } == (0..<500).map { Int64($0) })
        #expect(batch.allSatisfy { $0["sentAt"] == "2023-11-14T22:13:20.250Z" && $0["writeKey"] == "wk" })
    }
}
