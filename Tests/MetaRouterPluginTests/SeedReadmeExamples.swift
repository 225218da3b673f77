import Foundation
import MetaRouter

// The seed README's examples (UIKit / SwiftUI / AppTrackingTransparency glue aside), pasted
// unchanged: this file compiling is the test. The functions are never called — the examples
// point at a placeholder host.

private func quickStart() {
    // Initialize the analytics client
    let options = InitOptions(
        writeKey: "your-write-key",
        ingestionHost: "https://your-ingestion-endpoint.com",
        debug: true, // Optional: enable debug mode
        flushIntervalSeconds: 30, // Optional: flush events every 30 seconds
        maxQueueEvents: 2000 // Optional: max events in memory queue
    )
    let analytics = MetaRouter.Analytics.initialize(with: options)
    // Track events
    analytics.track("User Action", properties: [
        "action": "button_click",
        "screen": "home"
    ])
    // Identify users
    analytics.identify("user123", traits: [
        "name": "John Doe",
        "email": "john@example.com"
    ])
    // Track screen views
    analytics.screen("Home Screen", properties: [
        "category": "navigation"
    ])
    // Track page views
    analytics.page("Home Page", properties: [
        "url": "/home",
        "referrer": "/landing"
    ])
    // Group users
    analytics.group("company123", traits: [
        "name": "Acme Corp",
        "industry": "technology"
    ])
    // Flush events immediately
    analytics.flush()
    // Reset analytics (useful for testing or logout)
    analytics.reset()
}

private func sharedAccessor(options: InitOptions) {
    // Initialize once at app launch
    MetaRouter.Analytics.initialize(with: options)
    // Use anywhere — no need to thread the proxy through your code
    MetaRouter.Analytics.shared.track("Button Tapped")
    MetaRouter.Analytics.shared.identify("user123")
}

private func synchronousInitialization(options: InitOptions) async {
    // Wait for initialization to complete
    let analytics = await MetaRouter.Analytics.initializeAndWait(with: options)
    // Wait for reset to complete
    await MetaRouter.Analytics.resetAndWait()
    _ = analytics
}

private func debugging() async {
    // Initialize with debug enabled
    let options = InitOptions(
        writeKey: "your-write-key",
        ingestionHost: "https://your-ingestion-endpoint.com",
        debug: true // This enables detailed logging
    )
    let analytics = MetaRouter.Analytics.initialize(with: options)
    // Or enable debug logging after initialization
    analytics.enableDebugLogging()
    // Get current state information
    let debugInfo = await analytics.getDebugInfo()
    print("Analytics debug info:", debugInfo)
    // Enable tracing for detailed backend diagnostics
    analytics.setTracing(true)
    // Send events - they'll now include the Trace header
    analytics.track("Debug Event", properties: ["test": true])
    // Disable tracing when done
    analytics.setTracing(false)
    // Manually flush events to see if they're being sent
    analytics.flush()
}

private func identityAndAlias(analytics: AnalyticsInterface, newUserId: String) {
    analytics.identify("employeeID", traits: ["name": "Jane"])
    analytics.track("Product Viewed", properties: ["sku": "ABC123"])
    analytics.track("App Opened")
    analytics.alias(newUserId)
    // User browses anonymously
    analytics.track("Product Viewed", properties: ["productId": "XYZ"])
    analytics.track("Add to Cart", properties: ["productId": "XYZ"])
    // User creates an account / signs up
    analytics.alias("user-456")
    // Optionally add user traits
    analytics.identify("user-456", traits: [
        "name": "John Doe",
        "email": "john@example.com"
    ])
    // Future events now tracked as authenticated user
    analytics.track("Purchase Complete", properties: ["orderId": "789"])
    analytics.track("Purchase", properties: ["total": 49.99])
}

private func advertisingId(analytics: AnalyticsInterface, advertisingId: String) {
    analytics.setAdvertisingId(advertisingId)
    analytics.setAdvertisingId(nil)
    // User withdraws consent for advertising tracking
    analytics.clearAdvertisingId()
    // Analytics continues to work without IDFA
    analytics.track("checkout_completed", properties: ["order_id": "12345"])
}

private func deepLinks(incomingURL: URL) {
    MetaRouter.Analytics.shared.recordOpenedURL(
        incomingURL,
        sourceApplication: nil
    )
}

/// The seed's `AnalyticsManager`, minus `ObservableObject` (Combine is Apple-only).
private class AnalyticsManager {
    private var analytics: AnalyticsInterface?
    func initialize() {
        let options = InitOptions(
            writeKey: "your-write-key",
            ingestionHost: "https://your-ingestion-endpoint.com"
        )
        analytics = MetaRouter.Analytics.initialize(with: options)
    }
    func track(_ event: String, properties: [String: Any]? = nil) {
        analytics?.track(event, properties: properties)
    }
    func identify(_ userId: String, traits: [String: Any]? = nil) {
        analytics?.identify(userId, traits: traits)
    }
    func screen(_ name: String, properties: [String: Any]? = nil) {
        analytics?.screen(name, properties: properties)
    }
    func setAdvertisingId(_ advertisingId: String?) {
        analytics?.setAdvertisingId(advertisingId)
    }
    func buttonPressed() {
        track("Button Pressed", properties: [
            "buttonName": "submit",
            "timestamp": Date().timeIntervalSince1970
        ])
    }
}

@available(*, deprecated)
private func deprecatedAccessor() {
    MetaRouter.Analytics.client().track("Legacy")
}
