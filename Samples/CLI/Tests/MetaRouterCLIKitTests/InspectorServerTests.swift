import Foundation
import MetaRouter
import MetaRouterCLIKit
import Testing

/// `metarouter inspect`'s server with the SDK over loopback HTTP: gzip-compressed batches are
/// read, a dropped connection and a 429 make the SDK retry the same batch, the events arrive
/// once with their analysis, and a rule-language condition filters them.
@Suite struct InspectorServerTests {
    @Test func faultsAreAnsweredAndTheSDKRetriesTheSameBatchCompressed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = try TrackingPlan(json: #"{"events": {"Paid": {"properties": {"type": "object", "required": ["amount"]}}}}"#)
        let inspector = InspectorServer(plan: plan)
        let url = try await inspector.start()
        inspector.store.inject(.drop, count: 1)
        inspector.store.inject(.tooManyRequests, count: 1)

        var options = InitOptions(writeKey: "inspect-test-key", ingestionHost: url.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory
        options.gzipRequests = true
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.track("Viewed", properties: ["sku": "A"])
        analytics.track("Paid", properties: ["currency": "EUR"])
        let deadline = Date().addingTimeInterval(60)
        while inspector.store.events.count < 2, Date() < deadline {
            analytics.flush()
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        await analytics.shutdown(timeout: 5)

        let batches = inspector.store.batches
        #expect(batches.map { $0["status"] } == ["dropped", 429, 200])
        #expect(Set(batches.compactMap { $0["idempotencyKey"]?.stringValue }).count == 1)
        #expect(batches.last?["attempt"] == 3 && batches.last?["gzip"] == true)
        let events = inspector.store.events
        #expect(events.map { $0["event"]?["event"]?.stringValue } == ["Viewed", "Paid"])
        #expect(events[1]["analysis"]?["violations"]?.arrayValue?.first?["path"] == "properties.amount")
        #expect(inspector.store.stats["duplicates"] == 0)

        let filter = EventAnalysis.condition(#"event = "Paid""#)
        let test = try #require(filter.test)
        #expect(events.filter { test($0["event"] ?? .null) }.count == 1)
        #expect(EventAnalysis.condition("event = = 1").error != nil)
        await inspector.stop()
    }
}
