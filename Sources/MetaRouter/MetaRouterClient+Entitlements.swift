#if Entitlements
import Foundation

extension MetaRouterClient {
    /// The entitlements served, when `InitOptions.entitlements` is set.
    var entitlementCache: EntitlementCache? { pillarSlots.entitlementCache }

    /// Whether the identified user is entitled to `key`: a lock and a set lookup.
    package func isEntitled(_ key: String) -> Bool {
        entitlementCache?.contains(key) ?? false
    }

    /// The identified user's entitlements, when known.
    package func entitlements() -> Set<String>? {
        entitlementCache?.entitlements
    }

    /// Fetches the identified user's entitlements, in order after the calls made before.
    package func refreshEntitlements() async throws -> Set<String> {
        guard entitlementCache != nil else { throw EntitlementError.notConfigured }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Set<String>, EntitlementError>, Never>) in
            let answered = Locked(false)
            let reply: @Sendable (Result<Set<String>, EntitlementError>) -> Void = { result in
                if answered.firstTime() { continuation.resume(returning: result) }
            }
            guard !client.isInForkedChild else { return reply(.failure(.notConfigured)) }
            client.perform { timeline in
                guard let plugin = self.pillars.entitlements?(timeline) else { return reply(.failure(.notConfigured)) }
                plugin.refresh(reply: reply)
            }
        }
        return try result.get()
    }

    /// Registers `handler` in call order.
    package func onEntitlementsChange(_ handler: @escaping @Sendable (EntitlementChange) -> Void) {
        guard entitlementCache != nil else { return notConfigured("onEntitlementsChange") }
        client.perform { self.pillars.entitlements?($0).onChange(handler) }
    }

    /// A stream of the later changes; it ends at shutdown (at once when entitlements are off).
    package var entitlementChanges: AsyncStream<EntitlementChange> {
        var made: AsyncStream<EntitlementChange>.Continuation?
        let stream = AsyncStream<EntitlementChange> { made = $0 }
        guard let continuation = made else { return stream }
        guard entitlementCache != nil else {
            notConfigured("entitlementChanges")
            continuation.finish()
            return stream
        }
        client.perform { timeline in
            guard let plugin = self.pillars.entitlements?(timeline) else { return continuation.finish() }
            plugin.addStream(continuation)
        }
        return stream
    }

    /// Queues the purchase in call order, if it fits: the answer says whether it is kept.
    @discardableResult
    package func recordPurchase(transactionId: String, evidence: String) -> PurchaseRecording {
        guard let cache = entitlementCache else {
            notConfigured("recordPurchase")
            return .refused(reason: "entitlements are off (InitOptions.entitlements)")
        }
        guard !client.isInForkedChild else {
            client.noteForkedChild()
            return .refused(reason: "this process is a fork() child of the one that created the instance")
        }
        let recording = cache.admitPurchase(transactionId: transactionId, evidenceBytes: evidence.utf8.count)
        switch recording {
        case .queued:
            client.perform { timeline in
                self.pillars.entitlements?(timeline).record(transactionId: transactionId, evidence: evidence, timeline: timeline)
            }
        case .alreadyWaiting:
            client.logger.debug("sdk.purchase_duplicate: transaction \(transactionId) is already waiting")
        case .refused(let reason):
            client.logger.warning("sdk.purchase_refused: transaction \(transactionId) not recorded: \(reason)")
        }
        return recording
    }

    /// Runs `call` (an identify, alias or reset) as an identity change: the entitlements served
    /// go blank before the call is queued and come back, for the new user, once it is applied.
    func changingEntitledUser(_ cache: EntitlementCache, _ call: () -> Void) {
        cache.beginUserChange()
        call()
        client.perform { timeline in
            if let plugin = self.pillars.entitlements?(timeline) {
                plugin.userDidChange(timeline)
            } else {
                cache.endUserChange(userId: nil)
            }
        }
    }

    private func notConfigured(_ call: String) {
        client.logger.warning("sdk.entitlements_off: \(call) ignored: entitlements are off (InitOptions.entitlements)")
    }
}
#endif
