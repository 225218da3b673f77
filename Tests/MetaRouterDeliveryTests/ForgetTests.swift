import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// `forget()` wipes the instance's own state — queued events in memory and on disk, identity,
/// consent — reports it, and leaves every other file alone.
@Suite struct ForgetTests {
    @Test func forgetWipesQueuedEventsIdentityAndConsentAndNothingElse() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await collector.script(fallback: ScriptedResponse(status: 503))
        let bystander = directory.url.appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: bystander)
        let store = InMemoryKeyValueStore()
        var options = InitOptions(writeKey: "forget-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = store
        options.logSink = RecordingLogSink()
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("user-1", traits: ["email": "ann@example.com"])
        for index in 0..<30 { analytics.track("Queued", properties: ["n": index]) }
        analytics.setConsent(ConsentState(analytics: true, errors: false))
        analytics.registerSuperProperty("plan", "pro")
        await analytics.flushAndWait()
        let anonymousBefore = await analytics.getAnonymousId()

        let report = await analytics.forget()
        #expect(report.queuedEvents == 31)
        #expect(report.identity)
        #expect(report.consent)
        #expect(report.superProperties)
        #expect(report.breadcrumbs == 30)
        #expect(store.string(forKey: IdentityKeys.userId) == nil)
        #expect(store.string(forKey: IdentityKeys.traits) == nil)
        #expect(await analytics.getAnonymousId() != anonymousBefore)
        #expect(await analytics.getConsent() == .granted)
        #expect((await analytics.getDebugInfo()).queueLength == 0)
        #expect(try Data(contentsOf: bystander) == Data("keep me".utf8))
        await analytics.shutdown()

        // Nothing of it comes back at the next start.
        try await collector.script(fallback: ScriptedResponse(status: 200))
        let again = MetaRouter.Analytics.instance(for: options)
        again.track("Fresh", properties: ["n": 99])
        await again.flushAndWait()
        let delivered = try await collector.acceptedEvents()
        #expect(delivered.compactMap(\.number) == [99])
        #expect(delivered.allSatisfy { $0["userId"] == nil && $0["properties"]?["plan"] == nil })
        #expect(await again.forget() == ForgetReport(queuedEvents: 0, identity: false, consent: false, superProperties: false, breadcrumbs: 1))
        await again.shutdown()
    }
}
