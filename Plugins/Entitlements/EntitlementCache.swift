import Foundation
import MetaRouterCore

/// The entitlements the SDK serves, readable from any thread without waiting for the executor.
///
/// A set is held only together with the user it was fetched (or stored) for, and only while no
/// identity change is pending: the facade calls ``beginUserChange()`` at the call of `identify`,
/// `alias` or `reset` — before the call is even queued — and the plugin calls
/// ``endUserChange(userId:)`` on the executor once the identity plugin has applied it. Between
/// the two every read answers `nil`, so no read made after `identify` returns can see the
/// previous user's set, whichever thread it runs on. An answer is applied only while the cache
/// belongs to the user it was fetched for.
package final class EntitlementCache: Sendable {
    struct State {
        var pendingChanges = 0
        var userId: String?
        var entitlements: Set<String>?
        var purchases = PurchaseLedger()
    }

    private let state = Locked(State())

    package init() {}

    /// The set served now: `nil` while an identity change is pending, when no user is
    /// identified, or when none is known for the user.
    package var entitlements: Set<String>? {
        state.withLock { $0.pendingChanges == 0 ? $0.entitlements : nil }
    }

    /// Whether the set served now holds `key`.
    package func contains(_ key: String) -> Bool {
        state.withLock { $0.pendingChanges == 0 && $0.entitlements?.contains(key) == true }
    }

    /// The user the cache is for.
    package var userId: String? {
        state.withLock { $0.userId }
    }

    /// An identity change was called: serve nothing until it is applied.
    package func beginUserChange() {
        state.withLock { $0.pendingChanges += 1 }
    }

    /// An identity change was applied on the executor: the cache now belongs to `userId`, with
    /// no set. Returns whether another change was called meanwhile and is still to be applied:
    /// until it is, every read answers `nil` whatever the cache holds, so nothing need be loaded
    /// or fetched for `userId`.
    @discardableResult
    package func endUserChange(userId: String?) -> Bool {
        state.withLock { state in
            state.pendingChanges = max(0, state.pendingChanges - 1)
            state.userId = userId
            state.entitlements = nil
            return state.pendingChanges > 0
        }
    }

    /// Replaces the set when the cache still belongs to `userId`. Returns whether it did.
    @discardableResult
    package func replace(_ entitlements: Set<String>?, userId: String) -> Bool {
        state.withLock { state in
            guard state.userId == userId else { return false }
            state.entitlements = entitlements
            return true
        }
    }

    // MARK: Purchases

    /// Admits a purchase at the call (``PurchaseRecording``): whether it is kept.
    package func admitPurchase(transactionId: String, evidenceBytes: Int) -> PurchaseRecording {
        state.withLock {
            $0.purchases.admit(transactionId, evidenceBytes: evidenceBytes, maximumEvidenceBytes: EntitlementsPlugin.maximumEvidenceBytes)
        }
    }

    /// Counts purchases the plugin found waiting on disk.
    package func purchasesFound(_ found: [(transactionId: String, evidenceBytes: Int)]) {
        state.withLock { state in
            for purchase in found { state.purchases.found(purchase.transactionId, evidenceBytes: purchase.evidenceBytes) }
        }
    }

    /// A purchase left the queue (handed over, or refused for good by the source).
    package func purchaseLeft(_ transactionId: String) {
        state.withLock { $0.purchases.left(transactionId) }
    }

    /// Every waiting purchase was forgotten.
    package func purchasesForgotten() {
        state.withLock { $0.purchases.clear() }
    }
}
