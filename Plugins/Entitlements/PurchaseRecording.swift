import Foundation

/// What `recordPurchase(transactionId:evidence:)` did with a purchase, decided at the call.
/// Only ``queued`` and ``alreadyWaiting`` promise that the evidence reaches the source: a
/// refused purchase is not kept anywhere, and the caller keeps it (StoreKit redelivers an
/// unfinished transaction).
public enum PurchaseRecording: Sendable, Hashable {
    /// Kept on disk until the entitlement source takes it.
    case queued
    /// A purchase with this transaction id is waiting already; it is handed over once.
    case alreadyWaiting
    /// Not kept, for the reason given: the waiting purchases are at their cap (100 purchases,
    /// 4 MiB of evidence), the evidence is over 256 KiB or the transaction id is empty, or
    /// entitlements are off.
    case refused(reason: String)
}

/// The purchases waiting for the source, counted at the call (``EntitlementCache``), so that
/// `recordPurchase` can answer at once whether one more fits.
struct PurchaseLedger {
    /// Purchases that may wait at once.
    static let maximumCount = 100
    /// Bytes of evidence that may wait at once.
    static let maximumBytes = 4 << 20

    private(set) var waiting: [String: Int] = [:]
    private(set) var bytes = 0

    /// Admits a purchase of `evidenceBytes` unless it is waiting already or does not fit.
    mutating func admit(_ transactionId: String, evidenceBytes: Int, maximumEvidenceBytes: Int) -> PurchaseRecording {
        if transactionId.isEmpty { return .refused(reason: "the transaction id is empty") }
        if evidenceBytes > maximumEvidenceBytes {
            return .refused(reason: "the evidence is \(evidenceBytes) bytes, over the \(maximumEvidenceBytes) a purchase may have")
        }
        if waiting[transactionId] != nil { return .alreadyWaiting }
        if waiting.count >= Self.maximumCount {
            return .refused(reason: "\(waiting.count) purchases are waiting for the entitlement source already (at most \(Self.maximumCount))")
        }
        if bytes + evidenceBytes > Self.maximumBytes {
            return .refused(reason: "the waiting purchases hold \(bytes) bytes of evidence already (at most \(Self.maximumBytes))")
        }
        waiting[transactionId] = evidenceBytes
        bytes += evidenceBytes
        return .queued
    }

    /// Counts purchases found on disk at start (kept even past the cap: they were accepted).
    mutating func found(_ transactionId: String, evidenceBytes: Int) {
        guard waiting[transactionId] == nil else { return }
        waiting[transactionId] = evidenceBytes
        bytes += evidenceBytes
    }

    /// A purchase was handed over or refused for good.
    mutating func left(_ transactionId: String) {
        if let size = waiting.removeValue(forKey: transactionId) { bytes -= size }
    }

    /// Every waiting purchase was forgotten.
    mutating func clear() {
        waiting = [:]
        bytes = 0
    }
}
