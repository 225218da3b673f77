import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

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

    /// A body compressed ahead goes only with the batch it was made from, and only within its
    /// lifetime: its `sentAt` corrects the device's clock at the host. Otherwise the request's
    /// own body is compressed. (The queue is serial, so the order here is the order there.)
    @Test func aBodyCompressedAheadGoesOnlyWithItsBatchWhileFresh() async throws {
        let compression = RequestCompression()
        let events = (0..<3).map { QueuedEvent(messageId: "m-\($0)", timestamp: Date(), payload: Array("{\"n\":\($0)}".utf8)) }
        let batch = RequestCompression.BatchIdentity(events)
        let other = RequestCompression.BatchIdentity(Array(events.dropFirst()))
        let made = Date(timeIntervalSince1970: 1_800_000_000)
        let ahead = Data("{\"batch\":[\"made ahead\"]}".utf8)
        let own = Data("{\"batch\":[\"made at the sending\"]}".utf8)
        let compressor = try #require(GzipCompressor())
        let request = TransportRequest(url: URL(string: "http://127.0.0.1")!, body: own, timeout: 1)
        func sent(_ identity: RequestCompression.BatchIdentity, after seconds: Double) async -> TransportRequest {
            compression.prepare(ahead, for: batch, sentAt: made)
            return await withCheckedContinuation { done in
                compression.compress(request, of: identity, sentAt: made.addingTimeInterval(seconds)) { done.resume(returning: $0) }
            }
        }
        #expect(await sent(batch, after: 0.5).body == compressor.compress(ahead))
        #expect(await sent(batch, after: RequestCompression.preparedLifetime + 0.5).body == compressor.compress(own))
        #expect(await sent(other, after: 0).body == compressor.compress(own))
        #expect(await sent(batch, after: -1).body == compressor.compress(own))
        #expect(compression.sentPrepared.current == 1)
        #expect(await sent(batch, after: 0).headers["Content-Encoding"] == "gzip")
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
