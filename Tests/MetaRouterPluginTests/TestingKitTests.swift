import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// `Docs/Testing.md`'s example, as a user writes it: code that takes an `Analytics`, tested
/// with a real instance whose events end in a `CapturingDestination`.
@Suite struct TestingKitTests {
    struct Checkout {
        let analytics: Analytics
        func complete(orderId: String, total: Double) {
            analytics.track("Order Completed", properties: ["order_id": orderId, "total": total])
        }
    }

    @Test func checkoutTracksOrderCompleted() async {
        let capture = CapturingDestination()
        let analytics = Analytics.capturing(into: capture)
        analytics.identify("u1")
        Checkout(analytics: analytics).complete(orderId: "o-1", total: 19.99)
        await analytics.performAndWait { _ in }
        #expect(capture.events.last?.event == "Order Completed")
        #expect(capture.events.last?.userId == "u1")
        await analytics.shutdown()
    }

    /// The options can be changed, a plugin of the test's own runs beside the capture, and
    /// nothing is sent.
    @Test func configureAddsToTheCapturingInstance() async throws {
        final class Stamp: Plugin {
            let type = PluginType.enrichment
            func execute(event: consuming Event) -> Event? {
                event.context["stamped"] = true
                return event
            }
        }
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let analytics = Analytics.capturing(into: capture) { options in
            options.logSink = logs
            options.plugins = { [Stamp()] }
        }
        analytics.track("Seen")
        await analytics.performAndWait { _ in }
        let event = try #require(capture.events.last)
        #expect(event.event == "Seen" && event.context["stamped"] == true)
        #expect(await analytics.getDebugInfo().stats.sent == 0)
        await analytics.shutdown()
    }
}
