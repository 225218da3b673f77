import Foundation
import MetaRouter

/// A checkout session as an app writes it with the seed API alone: the calls of the README's
/// quick start, then the advertising ID, tracing and a reset.
public enum CheckoutSession {
    /// Initializes the instance for `writeKey` against `host`, makes the session's calls, waits
    /// for them to be delivered, and returns the instance's state after a final flush.
    public static func run(writeKey: String, host: URL, storage: URL) async -> DebugInfo {
        var options = InitOptions(writeKey: writeKey, ingestionHost: host, flushIntervalSeconds: 30, maxQueueEvents: 2000)
        options.storageDirectory = storage
        let analytics = MetaRouter.Analytics.initialize(with: options)

        analytics.identify("user123", traits: ["name": "John Doe", "email": "john@example.com"])
        analytics.track("Order Completed", properties: ["order_id": "A-1001", "total": 19.99])
        analytics.screen("Home Screen", properties: ["category": "navigation"])
        analytics.group("company123", traits: ["name": "Acme Corp"])
        analytics.alias("user-456")
        analytics.setAdvertisingId("123E4567-E89B-12D3-A456-426614174000")
        analytics.setTracing(true)
        MetaRouter.Analytics.shared.track("Button Tapped")
        // A reset also clears the queue: what was tracked before it is delivered first.
        await analytics.flushAndWait()
        analytics.reset()
        analytics.track("After Reset")
        await analytics.flushAndWait()
        let info = await analytics.getDebugInfo()
        await MetaRouter.Analytics.shutdownAll()
        return info
    }
}
