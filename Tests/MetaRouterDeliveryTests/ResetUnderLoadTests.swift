import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// `reset()` while eight threads track, another flushes and requests are in flight: at most
/// one request is ever in flight, every thread's delivered events arrive in order, and each
/// event is reported once — delivered or dropped by a reset, never both.
@Suite struct ResetUnderLoadTests {
    @Test func resetDuringUploadsReportsTruthfullyAndKeepsOrder() async throws {
        let harness = try await DeliveryHarness(realClock: SystemClock()) { options in
            options.upload.initialRetryDelay = 0.005
            options.upload.maxQueueEvents = 50_000
            options.upload.flushAt = 20
        }
        defer { harness.stop() }
        try await harness.collector.script(fallback: ScriptedResponse(delay: 0.005))
        let threads = 8
        let perThread = 1_500
        let client = harness.client
        let producers = DispatchGroup()
        for thread in 0..<threads {
            DispatchQueue.global().async(group: producers) {
                for index in 0..<perThread { client.track("Load", properties: ["t": thread, "n": index]) }
            }
        }
        let disruptors = DispatchGroup()
        DispatchQueue.global().async(group: disruptors) {
            for _ in 0..<25 {
                client.reset()
                usleep(20_000)
            }
        }
        DispatchQueue.global().async(group: disruptors) {
            for _ in 0..<50 {
                client.flush()
                usleep(10_000)
            }
        }
        await withCheckedContinuation { continuation in
            producers.notify(queue: .global()) { disruptors.notify(queue: .global()) { continuation.resume() } }
        }
        let total = threads * perThread
        let deadline = Date().addingTimeInterval(60)
        while harness.stats.sent + harness.stats.droppedTotal < total, Date() < deadline {
            await client.flushAndWait()
        }

        let requests = try await harness.collector.requests()
        #expect(requests.allSatisfy { $0.overlapping == 0 }, "two requests were in flight at once")
        let accepted = requests.filter { $0.status == 200 }.flatMap(\.events)
        for thread in 0..<threads {
            let numbers = accepted.filter { $0["properties"]?["t"]?.int64Value == Int64(thread) }.compactMap(\.number)
            #expect(numbers == numbers.sorted(), "thread \(thread)'s events arrived out of order")
        }
        let delivered = Set(accepted.compactMap { $0["messageId"]?.stringValue })
        let droppedIds = harness.failures.current.flatMap(\.payloads).map(\.messageId)
        #expect(Set(droppedIds).isDisjoint(with: delivered), "delivered events were also reported as dropped")
        #expect(droppedIds.count == Set(droppedIds).count, "an event was reported dropped twice")
        #expect(delivered.count == accepted.count, "an event was delivered twice")
        #expect(harness.stats.sent == accepted.count)
        #expect(harness.stats.sent + harness.stats.droppedTotal == total)
    }
}
