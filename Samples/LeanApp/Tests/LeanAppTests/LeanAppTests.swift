import CollectorProcess
import Foundation
import LeanApp
import MetaRouter
import Testing

// Serialized: both sessions use `MetaRouter.Analytics`, whose registry is the process's.
@Suite(.serialized) struct LeanAppTests {
    /// The traits are off: none of the pillar modules was built for this package.
    @Test func noPillarModuleIsBuilt() {
        var built: [String] = []
        #if canImport(MetaRouterTransforms)
        built.append("MetaRouterTransforms")
        #endif
        #if canImport(MetaRouterPrivacy)
        built.append("MetaRouterPrivacy")
        #endif
        #if canImport(MetaRouterTrackingPlan)
        built.append("MetaRouterTrackingPlan")
        #endif
        #if canImport(MetaRouterErrors)
        built.append("MetaRouterErrors")
        #endif
        #if canImport(MetaRouterCrashes)
        built.append("MetaRouterCrashes")
        #endif
        #if canImport(MetaRouterSignals)
        built.append("MetaRouterSignals")
        #endif
        #if canImport(MetaRouterEntitlements)
        built.append("MetaRouterEntitlements")
        #endif
        #expect(built == [])
    }

    /// The seed API's session arrives over loopback HTTP, in call order, with the identity,
    /// advertising ID and tracing the calls set, and a new identity after the reset.
    @Test func theSeedAPISessionArrivesInOrder() async throws {
        let collector = try PythonCollector()
        defer { collector.stop() }
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("lean-app-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: storage) }

        let info = await CheckoutSession.run(writeKey: "lean-app-key", host: collector.url, storage: storage)

        let requests = try await collector.requests()
        #expect(requests.allSatisfy { $0["path"] == "/v1/batch" && $0["status"] == 200 })
        let events = requests.flatMap { $0["body"]?["batch"]?.arrayValue ?? [] }
        #expect(events.map { $0["type"]?.stringValue ?? "?" } == ["identify", "track", "screen", "group", "alias", "track", "track"])
        #expect(events.compactMap { $0["event"]?.stringValue } == ["Order Completed", "Button Tapped", "After Reset"])
        try #require(events.count == 7)
        #expect(events[1]["userId"] == "user123")
        #expect(events[1]["properties"] == ["order_id": "A-1001", "total": 19.99])
        #expect(events[4]["previousId"] == "user123")
        #expect(events[5]["userId"] == "user-456")
        #expect(events[5]["context"]?["device"]?["advertisingId"] == "123E4567-E89B-12D3-A456-426614174000")
        #expect(events[6]["userId"] == nil)
        #expect(events[6]["context"]?["device"]?["advertisingId"] == nil)
        #expect(events[6]["anonymousId"] != events[0]["anonymousId"])
        #expect(requests.last?["headers"]?["trace"] == "true")
        #expect(info.queueLength == 0)
        #expect(info.stats.sent == 7)
        #expect(info.error == nil)
    }

    /// `forget()` is part of the seed API's build: it wipes the queue and the stored identity,
    /// and reports the pillars that are not built as having held nothing.
    @Test func forgetWipesTheQueueAndIdentityWithoutThePillars() async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("lean-app-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: storage) }
        var options = InitOptions(writeKey: "lean-app-forget", ingestionHost: "http://127.0.0.1:9")
        options.storageDirectory = storage
        let analytics = MetaRouter.Analytics.instance(for: options)
        let before = await analytics.getAnonymousId()
        analytics.identify("user-9")
        analytics.track("Queued")

        let report = await analytics.forget()

        #expect(report.queuedEvents == 2)
        #expect(report.identity)
        #expect(!report.consent && !report.superProperties && report.breadcrumbs == 0 && report.signals == 0)
        #expect(await analytics.getAnonymousId() != before)
        #expect(await analytics.getDebugInfo().queueLength == 0)
        await analytics.shutdown()
    }
}
