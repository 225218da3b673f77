import Foundation
import LoadCollectorKit
import Testing

/// The load test's collector finds every message id of a compact batch without parsing it,
/// sends anything else to the JSON parser, and counts each id once.
@Suite struct LoadCollectorTests {
    private func scanned(_ body: String) -> [MessageID]? {
        Array(body.utf8).withUnsafeBytes(MessageIDScan.scannedIDs)
    }

    @Test func compactBatchesAreScannedLikeTheyParse() throws {
        let ids = (0..<200).map { "\(1_763_938_000_000 + $0)-\(UUID().uuidString)" } + ["", "short", String(repeating: "x", count: 90)]
        let events = ids.map { #"{"type":"track","messageId":"\#($0)","properties":{"Id":"I","n":1}}"# }
        let body = #"{"batch":[\#(events.joined(separator: ","))],"sentAt":"2026-11-23T00:00:00.000Z"}"#
        let scannedIds = try #require(scanned(body))
        #expect(scannedIds == ids.map(MessageID.init))
        #expect(MessageIDScan.parsedIDs(Data(body.utf8)) == scannedIds)
    }

    @Test func bodiesTheScanCannotReadGoToTheParser() {
        #expect(scanned(#"{"batch":[{"messageId" : "a"}]}"#) == nil)
        #expect(scanned(#"{"batch":[{"messageId":"a\"b"}]}"#) == nil)
        #expect(scanned(#"{"batch":[{"messageId":7}]}"#) == nil)
        #expect(scanned(#"{"batch":[]}"#) == nil)
        #expect(scanned("not json") == nil)
        #expect(MessageIDScan.parsedIDs(Data(#"{"batch":[{"messageId" : "a\"b"}]}"#.utf8)) == [MessageID(#"a"b"#)])
        #expect(MessageIDScan.parsedIDs(Data("not json".utf8)) == nil)
        #expect(MessageIDScan.parsedIDs(Data(#"{"batch":[{"type":"track"}]}"#.utf8)) == nil)
    }

    @Test func eachIdCountsOnceAcrossBatchesAndGrowth() {
        var counts = DeliveryCounts()
        let ids = (0..<5_000).map { MessageID("id-\($0)") }
        counts.accept(Array(ids[0..<3_000]), at: 1)
        counts.accept(Array(ids[2_000..<5_000]) + [ids[0]], at: 3.5)
        #expect(counts.unique == 5_000)
        #expect(counts.duplicates == 1_001)
        #expect(counts.events == 6_001)
        #expect(counts.acceptedBatches == 2)
        #expect(counts.maxGapSeconds == 2.5)
        #expect(MessageID("a") != MessageID("A"))
        #expect(MessageID("a") != MessageID("a\u{0}"))

        var small = MessageIDSet(capacity: 1)
        #expect((0..<1_000).allSatisfy { small.insert(MessageID("\($0)")) })
        #expect((0..<1_000).allSatisfy { !small.insert(MessageID("\($0)")) })
        #expect(small.count == 1_000)
    }
}
