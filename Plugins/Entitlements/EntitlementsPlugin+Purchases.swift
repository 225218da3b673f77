import Foundation
import MetaRouterCore

extension EntitlementsPlugin {
    /// Evidence longer than this is refused at the call (a StoreKit 2 signed transaction is a
    /// few KiB).
    package static let maximumEvidenceBytes = 256 * 1024

    /// Queues a purchase the cache admitted at the call (``EntitlementCache/admitPurchase(transactionId:evidenceBytes:)``)
    /// for the source, durably (a file per purchase), once per transaction id however often it
    /// is recorded while waiting; sends it now if nothing is in flight.
    package func record(transactionId: String, evidence: String, timeline: Timeline) {
        guard let analytics else { return }
        guard !purchases.contains(where: { $0.transactionId == transactionId }) else {
            return analytics.logger.debug("sdk.purchase_duplicate: transaction \(transactionId) is already waiting")
        }
        let who = identity(timeline)
        let purchase = EntitlementStore.Purchase(
            transactionId: transactionId, evidence: evidence, userId: who.userId, anonymousId: who.anonymousId,
            recordedAt: analytics.configuration.clock.now().timeIntervalSince1970)
        purchases.append(purchase)
        do {
            try store.storePurchase(purchase)
        } catch {
            analytics.logger.warning("sdk.purchase_not_stored: \(error); transaction \(transactionId) is kept in memory only")
        }
        sendPurchases()
    }

    /// Hands the oldest waiting purchase to the source, one at a time.
    func sendPurchases() {
        guard !purchaseInFlight, let purchase = purchases.first, let analytics else { return }
        purchaseInFlight = true
        let source = source
        let handle = ExecutorHandle(self, on: analytics)
        // One task per purchase, never per event.
        Task {
            var outcome: EntitlementError?
            do {
                try await source.submitPurchase(
                    transactionId: purchase.transactionId, evidence: purchase.evidence, userId: purchase.userId, anonymousId: purchase.anonymousId)
            } catch let error as EntitlementError {
                outcome = error
            } catch {
                outcome = .unavailable(String(describing: error))
            }
            let failure = outcome
            handle.performPromptly { plugin, _ in plugin.purchaseFinished(purchase.transactionId, failure: failure) }
        }
    }

    private func purchaseFinished(_ transactionId: String, failure: EntitlementError?) {
        purchaseInFlight = false
        switch failure {
        case nil:
            drop(transactionId)
            analytics?.logger.info("sdk.purchase_sent: transaction \(transactionId) handed to the entitlement source")
            refresh(reply: nil)
            sendPurchases()
        case .rejected(let status)?:
            drop(transactionId)
            analytics?.logger.warning("sdk.purchase_rejected: the entitlement source refused transaction \(transactionId) for good (HTTP \(status)); dropped")
            sendPurchases()
        case let error?:
            analytics?.logger.info("sdk.purchase_retry: transaction \(transactionId) not handed over (\(error)); tried again later")
            scheduleRefresh()
        }
    }

    private func drop(_ transactionId: String) {
        purchases.removeAll { $0.transactionId == transactionId }
        cache.purchaseLeft(transactionId)
        store.removePurchase(transactionId)
    }
}
