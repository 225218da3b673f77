import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Super properties through the public API: added to track, screen and page in call order,
/// the call's own keys winning, persisted per instance, cleared by reset, scrubbed like the
/// call's own properties.
@Suite struct SuperPropertiesTests {
    @Test func registeredPropertiesJoinLaterCallsAndTheCallsOwnKeysWin() async {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("super-\(UUID())", capture: capture))
        analytics.track("Before")
        analytics.registerSuperProperty("plan", "pro")
        analytics.registerSuperProperty("tier", 2)
        analytics.registerSuperPropertyOnce("plan", "free")
        analytics.registerSuperPropertyOnce("region", "eu")
        analytics.track("Own Wins", properties: ["plan": "trial"])
        analytics.screen("Home")
        analytics.page("Docs")
        analytics.identify("user-1", traits: ["name": "Ann"])
        analytics.unregisterSuperProperty("tier")
        analytics.track("Unregistered")
        analytics.reset()
        analytics.track("After Reset")
        await analytics.flushAndWait()
        let events = capture.events
        #expect(events[0].properties == nil)
        #expect(events[1].properties == ["plan": "trial", "tier": 2, "region": "eu"])
        #expect(events[2].properties == ["plan": "pro", "tier": 2, "region": "eu", "name": "Home"])
        #expect(events[3].properties == ["plan": "pro", "tier": 2, "region": "eu", "name": "Docs"])
        #expect(events[4].traits == ["name": "Ann"])
        #expect(events[4].properties == nil)
        #expect(events[5].properties == ["plan": "pro", "region": "eu"])
        #expect(events[6].properties == nil)
        await analytics.shutdown()
    }

    @Test func persistedPerInstanceAndScrubbedWithTheRest() async {
        let store = InMemoryKeyValueStore()
        let key = "super-persist-\(UUID())"
        do {
            var options = localOptions(key, capture: CapturingDestination())
            options.keyValueStore = store
            let analytics = MetaRouter.Analytics.instance(for: options)
            analytics.registerSuperProperty("contact", "ann@example.com")
            analytics.registerSuperProperty("bad", Double.nan)
            await analytics.shutdown()
        }
        let capture = CapturingDestination()
        var options = localOptions(key, capture: capture)
        options.keyValueStore = store
        options.scrubPII = true
        let again = MetaRouter.Analytics.instance(for: options)
        again.track("Next Launch")
        await again.flushAndWait()
        #expect(capture.events.first?.properties == ["contact": "<email>"])
        await again.shutdown()
    }
}
