import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// A server's identity mode: each event names its person; nothing is persisted or shared.
@Suite struct PerCallIdentityTests {
    private func perCallInstance(_ writeKey: String, store: InMemoryKeyValueStore, logs: RecordingLogSink) -> (MetaRouter.Analytics, CapturingDestination) {
        let capture = CapturingDestination()
        var options = localOptions(writeKey, capture: capture, logs: logs)
        options.keyValueStore = store
        options.identityMode = .perCall
        return (MetaRouter.Analytics.instance(for: options), capture)
    }

    @Test func eventsCarryOnlyTheirOwnIdentityAndNothingIsPersisted() async {
        let store = InMemoryKeyValueStore()
        let (analytics, capture) = perCallInstance("per-call-\(UUID().uuidString)", store: store, logs: RecordingLogSink())
        analytics.track("Paid", properties: ["amount": 3], options: EventOptions(userId: "user-1"))
        analytics.track("Viewed", properties: nil, options: EventOptions(anonymousId: "visitor-2"))
        analytics.identify("user-3", traits: ["plan": "pro"])
        analytics.group("acme", traits: nil, options: EventOptions(userId: "user-3"))
        await analytics.engine.settle()
        let events = capture.events
        #expect(events.map(\.type) == [.track, .track, .identify, .group])
        #expect(events[0].userId == "user-1")
        #expect(events[0].anonymousId == nil)
        #expect(events[1].userId == nil)
        #expect(events[1].anonymousId == "visitor-2")
        #expect(events[2].userId == "user-3")
        #expect(events[3].userId == "user-3")
        #expect(events.allSatisfy { $0.groupId == nil || $0.type == .group })
        #expect(store.snapshot.isEmpty)
        await analytics.shutdown()
    }

    @Test func anEventWithoutIdentityIsRejectedLoggedOnceAndCounted() async {
        let logs = RecordingLogSink()
        let (analytics, capture) = perCallInstance("per-call-\(UUID().uuidString)", store: InMemoryKeyValueStore(), logs: logs)
        analytics.identify("user-1")
        analytics.track("Nobody")
        analytics.track("Nobody again")
        analytics.alias("user-2")
        analytics.alias("user-2", options: EventOptions(anonymousId: "visitor-1"))
        let info = await analytics.getDebugInfo()
        let events = capture.events
        #expect(events.map(\.type) == [.identify, .alias])
        #expect(events.last?.previousId == "visitor-1")
        #expect(events.last?.userId == "user-2")
        #expect(info.stats.dropped[.noIdentity] == 3)
        let warnings = logs.messages(atLeast: .warning).filter { $0.contains("per-call identity mode") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("track \"Nobody\"") == true)
        #expect(info.anonymousId == nil)
        await analytics.shutdown()
    }

    @Test func lifecycleEventsNeedADeviceIdentity() async {
        var options = InitOptions(writeKey: "per-call-lifecycle", ingestionHost: "https://in.example.com", trackLifecycleEvents: true)
        options.identityMode = .perCall
        let analytics = MetaRouter.Analytics.instance(for: options)
        #expect(analytics.configurationError?.contains("identityMode .perCall") == true)
    }
}
