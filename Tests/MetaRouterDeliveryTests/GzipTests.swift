import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Gzip request bodies, decoded by the collector with Python's own gzip module (an
/// independent implementation): the events arrive intact and the wire carries far fewer bytes.
@Suite struct GzipTests {
    @Test func gzipBodiesArriveIntactAndSmaller() async throws {
        let harness = try await DeliveryHarness { $0.upload.gzip = true }
        defer { harness.stop() }
        for index in 0..<100 {
            harness.client.track("Product Viewed", properties: ["n": index, "sku": "SHOE-\(index)", "price": 19.99, "currency": "EUR"])
        }
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        try #require(requests.count == 1)
        #expect(requests[0].headers["content-encoding"] == "gzip")
        #expect(requests[0].events.compactMap(\.number) == Array(0..<100))
        #expect(requests[0].wireLength * 4 < requests[0].length, "\(requests[0].wireLength) bytes on the wire for \(requests[0].length)")
    }

    /// The uploader's one stream, reset for each body, compresses batch after batch.
    @Test func everyBatchThroughTheReusedStreamDecodes() async throws {
        let harness = try await DeliveryHarness {
            $0.upload.gzip = true
            $0.upload.maxBatchSize = 50
            $0.upload.flushAt = 1_000  // nothing leaves before the flush: eight whole batches wait
        }
        defer { harness.stop() }
        for index in 0..<400 {
            harness.client.track("Product Viewed", properties: ["n": index, "sku": "SHOE-\(index % 13)", "note": String(repeating: "x", count: index % 90)])
        }
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.count == 8)
        #expect(requests.allSatisfy { $0.headers["content-encoding"] == "gzip" && $0.wireLength < $0.length })
        #expect(requests.flatMap { $0.events.compactMap(\.number) } == Array(0..<400))
        // Every body after the first was compressed while its predecessor was in flight, and
        // every one of them decoded above.
        #expect(harness.destination.uploader?.bodiesCompressedAhead == 7)
    }

    /// A batch that fails is retried with its own body, not with the one compressed ahead for
    /// the batch after it; every event arrives once the host recovers, in order.
    @Test func aRetriedBatchNeverTakesTheBodyMadeForTheNextOne() async throws {
        let harness = try await DeliveryHarness {
            $0.upload.gzip = true
            $0.upload.maxBatchSize = 10
            $0.upload.flushAt = 1_000
        }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(), ScriptedResponse(status: 500)])
        for index in 0..<40 { harness.client.track("Product Viewed", properties: ["n": index]) }
        await harness.client.flushAndWait()
        await harness.advance(by: 2)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        let accepted = requests.filter { $0.status == 200 }
        #expect(requests.count == 5)
        #expect(requests[1].status == 500 && requests[2].events.compactMap(\.number) == Array(10..<20))
        #expect(accepted.flatMap { $0.events.compactMap(\.number) } == Array(0..<40))
    }

    /// A body compressed ahead carries the `sentAt` of its making; once the batch before it has
    /// been out for longer than its lifetime, the batch leaves with a body made at its sending.
    @Test func aBodyCompressedAheadIsDroppedOnceItsSentAtIsStale() async throws {
        let harness = try await DeliveryHarness {
            $0.upload.gzip = true
            $0.upload.maxBatchSize = 10
            $0.upload.flushAt = 1_000
        }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(delay: 0.5)])
        for index in 0..<20 { harness.client.track("Product Viewed", properties: ["n": index]) }
        harness.client.flush()
        await harness.client.settle()  // the first batch is out, the second compressed ahead
        await harness.advance(by: 5)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        try #require(requests.count == 2)
        #expect(requests.flatMap { $0.events.compactMap(\.number) } == Array(0..<20))
        #expect(requests[1].events.first?["sentAt"] != requests[0].events.first?["sentAt"])
        #expect(harness.destination.uploader?.bodiesCompressedAhead == 0)
    }

    @Test func withoutTheOptionBodiesGoAsTheyAre() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        harness.track(3)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.first?.headers["content-encoding"] == nil)
        #expect(requests.first.map { $0.wireLength == $0.length } == true)
    }
}
