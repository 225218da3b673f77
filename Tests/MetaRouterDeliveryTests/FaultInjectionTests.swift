import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@Suite struct FaultInjectionTests {
    /// 10k events against a collector failing 30 % of requests at random (503s, and in the
    /// second run also dropped connections), on the wall clock with short delays: every event
    /// arrives exactly once by messageId, in order, and the process survives (no request is
    /// ever cancelled).
    @Test(arguments: [false, true])
    func tenThousandEventsThroughThirtyPercentFaults(dropConnections: Bool) async throws {
        let harness = try await DeliveryHarness(realClock: SystemClock()) { options in
            options.upload.initialRetryDelay = 0.005
            options.upload.breaker.cooldown = 0.02
            options.upload.breaker.maxCooldown = 0.05
            options.upload.maxQueueEvents = 20_000
            options.upload.flushAt = 100
        }
        defer { harness.stop() }
        let drops = dropConnections ? (0..<40).map { $0 % 3 == 0 ? ScriptedResponse(drop: true) : ScriptedResponse() } : []
        try await harness.collector.script(drops, failRate: 0.3, failStatus: 503, seed: dropConnections ? 3 : 5)
        let total = 10_000
        harness.track(total)
        let deadline = Date().addingTimeInterval(60)
        while harness.stats.sent < total, Date() < deadline {
            await harness.client.flushAndWait()
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let requests = try await harness.collector.requests()
        let accepted = requests.filter { $0.status == 200 && !$0.dropped }.flatMap(\.events)
        #expect(accepted.count == total)
        let inOrder = accepted.compactMap(\.number) == Array(0..<total)
        #expect(inOrder, "accepted events are out of order or incomplete")
        let ids = accepted.compactMap { $0["messageId"]?.stringValue }
        #expect(Set(ids).count == total)
        #expect(requests.contains { $0.status == 503 })
        #expect(requests.contains(where: \.dropped) == dropConnections)
        #expect(requests.allSatisfy { $0.body != nil }, "a request arrived without its body")
        #expect(harness.stats.sent == total)
        #expect(harness.stats.droppedTotal == 0)
    }
}
