import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// PII scrubbing through the public API: off by default, on from `InitOptions.scrubPII`,
/// switched in call order by `setScrubPII(_:)`, traits left alone unless asked, and sensitive
/// keys named once.
@Suite struct PIIScrubbingTests {
    @Test func offByDefaultOnWhenAskedAndSwitchedInCallOrder() async {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("pii-order-\(UUID())", capture: capture))
        analytics.track("Before", properties: ["email": "ann@example.com"])
        analytics.setScrubPII(true)
        analytics.track("During", properties: ["email": "ann@example.com", "card": "4111 1111 1111 1111"])
        analytics.screen("Checkout", properties: ["note": "bob@example.org"])
        analytics.identify("user-1", traits: ["email": "ann@example.com"])
        analytics.setScrubPII(false)
        analytics.track("After", properties: ["email": "ann@example.com"])
        await analytics.flushAndWait()
        let events = capture.events
        #expect(events.map { $0.event ?? $0.name ?? $0.type.rawValue } == ["Before", "During", "Checkout", "identify", "After"])
        #expect(events[0].properties?["email"] == "ann@example.com")
        #expect(events[1].properties?["email"] == "<email>")
        #expect(events[1].properties?["card"] == "<card>")
        #expect(events[2].properties?["note"] == "<email>")
        #expect(events[3].traits?["email"] == "ann@example.com")
        #expect(events[4].properties?["email"] == "ann@example.com")
        await analytics.shutdown()
    }

    @Test func traitsAreScrubbedOnlyWhenAsked() async {
        let capture = CapturingDestination()
        var options = localOptions("pii-traits-\(UUID())", capture: capture)
        options.scrubPII = true
        options.piiScrubbing = PIIScrubbingOptions(redactedKeys: ["password"], scrubsTraits: true)
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("user-1", traits: ["email": "ann@example.com", "password": "hunter2", "plan": "pro"])
        analytics.track("Signed In", properties: ["password": "hunter2"])
        await analytics.flushAndWait()
        let events = capture.events
        #expect(events.first?.traits?["email"] == "<email>")
        #expect(events.first?.traits?["password"] == "<redacted>")
        #expect(events.first?.traits?["plan"] == "pro")
        #expect(events.last?.properties?["password"] == "<redacted>")
        await analytics.shutdown()
    }

    @Test func sensitiveLookingKeysAreNamedOnceWithDebugLogging() async {
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        var options = localOptions("pii-keys-\(UUID())", capture: capture, logs: logs)
        options.debug = true
        let analytics = MetaRouter.Analytics.instance(for: options)
        for _ in 0..<5 { analytics.track("Form", properties: ["userEmail": "x", "auth_token": "y", "color": "z"]) }
        await analytics.flushAndWait()
        let named = logs.messages.filter { $0.contains("sdk.pii_sensitive_key") }
        #expect(named.count == 2)
        #expect(named.contains { $0.contains("\"userEmail\"") })
        #expect(named.contains { $0.contains("\"auth_token\"") })
        await analytics.shutdown()
    }
}
