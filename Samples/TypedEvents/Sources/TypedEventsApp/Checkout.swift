import Foundation
import MetaRouter

/// A checkout as an app writes it with typed events: a wrong property name, a missing required
/// one, a wrong type or an unknown currency does not compile.
public struct Checkout: Sendable {
    let analytics: Analytics

    /// A checkout that tracks through `analytics`.
    public init(analytics: Analytics) { self.analytics = analytics }

    /// Tracks the view of a product.
    public func viewed(productId: String, price: Double) {
        analytics.productViewed(productId: productId, category: .books, price: price)
    }

    /// Tracks a completed order of one item.
    public func completed(orderId: String, sku: String, quantity: Int, total: Double) {
        analytics.orderCompleted(
            orderId: orderId, total: total, currency: .eur, items: [.init(sku: sku, quantity: quantity)], placedAt: Date())
    }

    /// The tracking plan the typed calls were generated from, to enforce on the device too.
    public static func trackingPlan() throws -> TrackingPlan {
        guard let url = Bundle.module.url(forResource: "tracking-plan", withExtension: "json") else { throw CocoaError(.fileNoSuchFile) }
        return try TrackingPlan(json: String(contentsOf: url, encoding: .utf8))
    }

    /// The plan file's bytes, as shipped in the app.
    public static func trackingPlanData() throws -> Data {
        guard let url = Bundle.module.url(forResource: "tracking-plan", withExtension: "json") else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: url)
    }

    /// The SHA-256 of the plan the code was generated from.
    public static var planHash: String { PlannedEvents.sha256 }
}
