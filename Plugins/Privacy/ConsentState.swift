import Foundation
import MetaRouterCore

/// What the user agreed to, in the two channels the SDK gates — analytics events and error
/// reports — plus optional category preferences (as Segment Consent Management names them:
/// `["Advertising": false, "Analytics": true]`) that travel on every event at
/// `context.consent.categoryPreferences`, for downstream destinations to enforce.
public struct ConsentState: Sendable, Hashable, Codable {
    /// Whether analytics events may be collected. When `false`, calls are dropped before any
    /// plugin sees them.
    public var analytics: Bool
    /// Whether error reports may be collected.
    public var errors: Bool
    /// Per-category preferences stamped on every event; `nil` stamps nothing. A category whose
    /// name contains "advertising" (any case) set to `false` withholds the advertising ID.
    public var categoryPreferences: [String: Bool]?

    /// Consent in both channels, as the SDK starts by default.
    public static let granted = ConsentState(analytics: true, errors: true)

    /// A consent state.
    ///
    /// - Parameters:
    ///   - analytics: Whether analytics events may be collected.
    ///   - errors: Whether error reports may be collected.
    ///   - categoryPreferences: Consent by destination category.
    public init(analytics: Bool, errors: Bool, categoryPreferences: [String: Bool]? = nil) {
        self.analytics = analytics
        self.errors = errors
        self.categoryPreferences = categoryPreferences
    }

    /// Whether a category named for advertising is denied.
    package var deniesAdvertising: Bool {
        categoryPreferences?.contains { $0.key.lowercased().contains("advertising") && !$0.value } ?? false
    }

    /// The preferences as the wire carries them, `context.consent`.
    var contextValue: JSON? {
        guard let categoryPreferences else { return nil }
        return .object(["categoryPreferences": .object(categoryPreferences.mapValues { .bool($0) })])
    }
}
