import Foundation

/// Where a user's entitlements come from, and where purchase evidence goes. The SDK's default
/// asks the ingestion host over HTTP (`Docs/Entitlements.md` gives the wire format); supply
/// your own to ask your backend.
///
/// The SDK calls a source off its executor, one refresh at a time for the user in force; a
/// call for a previous user may still be running when the next user's starts (the SDK never
/// waits for it, and applies its answer only to that user). An implementation may take as long
/// as it needs (bound it with a timeout of its own). What it throws decides what happens to the
/// set the SDK holds: ``EntitlementError/unauthorized`` clears it,
/// ``EntitlementError/rejected(status:)`` drops a purchase for good, and anything else is an
/// outage: the last known good set stays, and a purchase stays queued.
public protocol EntitlementSource: Sendable {
    /// The entitlements of `userId`. `etag` is the tag of the set the SDK holds for that user,
    /// when it holds one; answer ``EntitlementAnswer/unchanged`` when it still holds.
    ///
    /// - Parameters:
    ///   - userId: The identified user.
    ///   - etag: The tag of the set last fetched for the user, if any.
    /// - Returns: The user's set, or that it did not change.
    func entitlements(for userId: String, etag: String?) async throws -> EntitlementAnswer
    /// Hands over the evidence of a purchase (a StoreKit 2 signed transaction, say, as opaque
    /// text). Called again with the same `transactionId` after an outage: an implementation
    /// makes it idempotent by that id.
    ///
    /// - Parameters:
    ///   - transactionId: The purchase's transaction id.
    ///   - evidence: What the source verifies (a StoreKit 2 signed transaction).
    ///   - userId: The identified user, if any.
    ///   - anonymousId: The device's anonymous id.
    func submitPurchase(transactionId: String, evidence: String, userId: String?, anonymousId: String?) async throws
}

/// A source's answer to a refresh.
public enum EntitlementAnswer: Sendable, Hashable {
    /// The user's entitlements (empty: none), and a tag to send back next time.
    case entitlements(Set<String>, etag: String?)
    /// The set the SDK holds (the one whose tag was sent) still holds.
    case unchanged
}

/// Why entitlements could not be refreshed, or a purchase not handed over.
public enum EntitlementError: Error, Sendable, Hashable {
    /// Entitlements are off: `InitOptions.entitlements` is not set.
    case notConfigured
    /// No user is identified; entitlements belong to a `userId`.
    case notIdentified
    /// The user changed (identify, reset, alias) before the answer came; it was not applied.
    case userChanged
    /// The source refused the credentials (HTTP 401 or 403): the held set is cleared.
    case unauthorized
    /// The source refused the request for good (a purchase whose evidence is invalid, HTTP
    /// 400 or 422): it is not retried.
    case rejected(status: Int)
    /// The source could not answer now (a 5xx, a timeout, no network): the last known good set
    /// stays and the refresh is tried again later.
    case unavailable(String)

}
