import CollectorProcess
import CustomPlugins
import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

private let idfa = "123E4567-E89B-12D3-A456-426614174000"

/// A real instance with identity, context and the advertising ID (set to the test IDFA),
/// `plugins` added after them, and `capture` as a destination.
private func client(_ plugins: [any Plugin], capture: CapturingDestination) -> Analytics {
    let analytics = Analytics.capturing(into: capture) { $0.defaultPlugins = [.identity, .context, .advertisingId] }
    analytics.setAdvertisingId(idfa)
    for plugin in plugins { analytics.add(plugin: plugin) }
    return analytics
}

@Suite struct EnrichmentTests {
    @Test func appContextAndRenamesCompose() async {
        let capture = CapturingDestination()
        let analytics = client([AppContextPlugin(environment: "staging", experiments: ["checkout_v2": "treatment"]),
                                PropertyRenamePlugin(["productId": "product_id"])], capture: capture)
        analytics.track("Product Viewed", properties: ["productId": "SKU-1", "price": 9.5])
        await analytics.performAndWait { _ in }
        let event = capture.events.first
        #expect(event?.properties == ["product_id": "SKU-1", "price": 9.5])
        #expect(event?.context["environment"] == "staging")
        #expect(event?.context["experiments"] == ["checkout_v2": "treatment"])
        await analytics.shutdown()
    }

    @Test func consentGateDropsUntilGrantedInOrder() async {
        let capture = CapturingDestination()
        let analytics = client(ConsentGatePlugin().plugins, capture: capture)
        analytics.track("Before Consent")
        ConsentGatePlugin.update(analytics, granted: [.analytics])
        analytics.track("Analytics Only")
        ConsentGatePlugin.update(analytics, granted: [.analytics, .advertising])
        analytics.track("Everything")
        await analytics.performAndWait { _ in }
        #expect(capture.events.compactMap(\.event) == ["Analytics Only", "Everything"])
        #expect(capture.events[0].context["device"]?["advertisingId"] == nil)
        #expect(capture.events[1].context["device"]?["advertisingId"] == .string(idfa))
        await analytics.shutdown()
    }
}

@Suite struct WebhookDestinationTests {
    @Test func webhookGetsItsFormatAndAPartnerLosesTheIDFA() async throws {
        let collector = try PythonCollector()
        defer { collector.stop() }
        let webhook = WebhookDestination(endpoint: collector.url.appendingPathComponent("hooks/analytics"))
        let partner = CapturingDestination(key: "Partner")
        partner.timeline.add(StripAdvertisingIdPlugin())
        let capture = CapturingDestination()
        let analytics = client([webhook, partner], capture: capture)
        analytics.identify("user-7")
        analytics.track("Order Completed", properties: ["total": 42])
        analytics.track("Order Shipped", properties: ["carrier": "dhl"])
        await analytics.performAndWait { _ in }
        await analytics.flushAndWait()
        let requests = try await collector.requests()
        #expect(requests.count == 1)
        #expect(requests.first?["path"] == "/hooks/analytics")
        #expect(requests.first?["headers"]?["idempotency-key"] != nil)
        let events = requests.first?["body"]?["events"]?.arrayValue ?? []
        #expect(events.compactMap { $0["name"]?.stringValue } == ["Order Completed", "Order Shipped"])
        #expect(events.first?["user"] == "user-7")
        #expect(events.first?["data"] == ["total": 42])
        #expect(capture.events.last?.context["device"]?["advertisingId"] == .string(idfa))
        #expect(partner.events.count == 3)
        #expect(partner.events.allSatisfy { $0.context["device"]?["advertisingId"] == nil })
        #expect(webhook.sent == 2)
        await analytics.shutdown()
    }
}
