import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Consent through the public API: in call order, before any plugin, persisted, stamped on
/// the wire, withholding the advertising ID, and ordered under concurrent calls.
@Suite struct ConsentTests {
    @Test func withdrawnConsentDropsLaterCallsBeforeAnyPluginSeesThem() async {
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let store = InMemoryKeyValueStore()
        var options = localOptions("consent-order-\(UUID())", capture: capture, logs: logs)
        options.keyValueStore = store
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.track("Before")
        analytics.setConsent(ConsentState(analytics: false, errors: true))
        analytics.track("While Withdrawn")
        analytics.identify("user-while-withdrawn", traits: ["plan": "pro"])
        for index in 0..<50 { analytics.track("Withdrawn \(index)") }
        analytics.setConsent(.granted)
        analytics.track("After")
        await analytics.flushAndWait()
        #expect(capture.events.map { $0.event } == ["Before", "After"])
        #expect(store.string(forKey: IdentityKeys.userId) == nil)
        #expect(capture.events.allSatisfy { $0.userId == nil })
        let info = await analytics.getDebugInfo()
        #expect(info.stats.dropped[.consent] == 52)
        #expect(info.description.contains("(consent=52)"))
        #expect(info.consent == .granted)
        #expect(logs.messages.filter { $0.contains("sdk.consent_denied") }.count == 1)
        #expect(logs.messages.filter { $0.contains("sdk.consent_changed") }.count == 1)
        await analytics.shutdown()
    }

    @Test func consentIsPersistedPerInstance() async {
        let store = InMemoryKeyValueStore()
        let key = "consent-persist-\(UUID())"
        do {
            var options = localOptions(key, capture: CapturingDestination())
            options.keyValueStore = store
            let analytics = MetaRouter.Analytics.instance(for: options)
            analytics.setConsent(ConsentState(analytics: false, errors: false))
            await analytics.shutdown()
        }
        let capture = CapturingDestination()
        var options = localOptions(key, capture: capture)
        options.keyValueStore = store
        let again = MetaRouter.Analytics.instance(for: options)
        again.track("Still Withdrawn")
        await again.flushAndWait()
        #expect(await again.getConsent() == ConsentState(analytics: false, errors: false))
        #expect(capture.events.isEmpty)
        // Another write key sharing the store keeps its own consent.
        let otherCapture = CapturingDestination()
        var other = localOptions("consent-other-\(UUID())", capture: otherCapture)
        other.keyValueStore = store
        let otherInstance = MetaRouter.Analytics.instance(for: other)
        otherInstance.track("Collected")
        await otherInstance.flushAndWait()
        #expect(otherCapture.events.count == 1)
        await again.shutdown()
        await otherInstance.shutdown()
    }

    @Test func categoryPreferencesAreStampedAndAdvertisingDenialWithholdsTheAdvertisingID() async {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("consent-categories-\(UUID())", capture: capture))
        let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        analytics.setAdvertisingId(idfa)
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": false, "Analytics": true]))
        analytics.track("Denied Ads")
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": true]))
        analytics.track("Allowed Ads")
        await analytics.flushAndWait()
        let events = capture.events
        #expect(events.count == 2)
        #expect(events[0].context["consent"]?["categoryPreferences"] == ["Advertising": false, "Analytics": true])
        #expect(events[0].context["device"]?["advertisingId"] == nil)
        #expect(events[1].context["consent"]?["categoryPreferences"] == ["Advertising": true])
        #expect(events[1].context["device"]?["advertisingId"] == .string(idfa))
        await analytics.shutdown()
    }

    /// Four threads track while a fifth withdraws and grants consent: each thread's own calls
    /// made before its withdrawal are delivered and those after it (until the grant) are not,
    /// and every other thread loses at most one contiguous run of its calls.
    @Test func consentTakesEffectInCallOrderUnderConcurrentCalls() async {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("consent-concurrent-\(UUID())", capture: capture))
        let perThread = 400
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for index in 0..<perThread { analytics.track("Load", properties: ["t": thread, "n": index]) }
                }
            }
            group.addTask {
                for index in 0..<perThread {
                    if index == 100 { analytics.setConsent(ConsentState(analytics: false, errors: true)) }
                    if index == 300 { analytics.setConsent(.granted) }
                    analytics.track("Toggler", properties: ["n": index])
                }
            }
        }
        await analytics.flushAndWait()
        let events = capture.events
        let toggler = events.filter { $0.event == "Toggler" }.compactMap { $0.properties?["n"]?.int64Value }
        #expect(toggler == Array(0..<100) + Array(300..<Int64(perThread)))
        for thread in 0..<4 {
            let numbers = events.filter { $0.properties?["t"]?.int64Value == Int64(thread) }.compactMap { $0.properties?["n"]?.int64Value }
            #expect(numbers == numbers.sorted())
            let gaps = zip(numbers, numbers.dropFirst()).filter { $1 != $0 + 1 }.count
            #expect(gaps <= 1)
        }
        await analytics.shutdown()
    }
}
