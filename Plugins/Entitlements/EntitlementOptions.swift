import Foundation

/// Turns entitlements on (`InitOptions.entitlements`): the set of features the identified user
/// is entitled to, held in memory, persisted per user, refreshed from a source.
public struct EntitlementOptions: Sendable {
    /// Seconds between automatic refreshes while a user is identified (default 900; at least
    /// 60). A refresh also runs at start and after every identity change.
    public var refreshIntervalSeconds: TimeInterval
    /// Where entitlements come from; `nil` asks the ingestion host
    /// (`GET {ingestionHost}/v1/entitlements`).
    public var source: (any EntitlementSource)?

    /// Entitlements from `source` (the ingestion host when `nil`), refreshed every
    /// `refreshIntervalSeconds`.
    ///
    /// - Parameters:
    ///   - refreshIntervalSeconds: Seconds between refreshes while the app runs.
    ///   - source: Where entitlements come from; `nil` for the ingestion host's endpoint.
    public init(refreshIntervalSeconds: TimeInterval = 900, source: (any EntitlementSource)? = nil) {
        self.refreshIntervalSeconds = refreshIntervalSeconds
        self.source = source
    }
}

/// A change of the entitlements the SDK serves, reported in the executor's order.
public struct EntitlementChange: Sendable, Hashable {
    /// The user the new set belongs to (`nil` once no user is identified).
    public let userId: String?
    /// The set served before (`nil`: none known).
    public let old: Set<String>?
    /// The set served now (`nil`: none known, and every `isEntitled` is `false`).
    public let new: Set<String>?

    package init(userId: String?, old: Set<String>?, new: Set<String>?) {
        self.userId = userId
        self.old = old
        self.new = new
    }
}
