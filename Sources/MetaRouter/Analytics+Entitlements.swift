#if Entitlements
import Foundation

/// Entitlements: the methods the `Entitlements` trait adds.
extension Analytics {
    /// The entitlements served, when `InitOptions.entitlements` is set.
    var entitlementCache: EntitlementCache? { parts.pillarSlots.entitlementCache }

    /// Whether calls are kept for an instance not bound yet (``shared`` before
    /// `initialize(with:)`): what needs the instance's entitlements waits for it.
    private var isKeeping: Bool { slot?.isBound == false }

    /// Whether the identified user is entitled to `key` now (a lock and a set lookup). Read from
    /// memory, never waiting for the network, the disk or the executor.
    ///
    /// - Parameter key: The entitlement, e.g. `"pro"`.
    /// - Returns: `false` whenever ``entitlements()`` is `nil`, and in a `fork()` child, which
    ///   takes none of the parent's locks.
    public func isEntitled(_ key: String) -> Bool {
        guard !ForkGuard.isChild else { return false }
        return entitlementCache?.contains(key) ?? false
    }

    /// The identified user's entitlements.
    ///
    /// - Returns: `nil` when none are known for that user: entitlements off
    ///   (`InitOptions.entitlements`), no user, an `identify`, `alias` or `reset` not yet
    ///   applied, or nothing fetched or stored for the user yet.
    public func entitlements() -> Set<String>? {
        guard !ForkGuard.isChild else { return nil }
        return entitlementCache?.entitlements
    }

    /// Fetches the identified user's entitlements now, in order after the calls made before; on
    /// an outage the last known good set stays in force.
    ///
    /// - Returns: The entitlements fetched.
    /// - Throws: An ``EntitlementError``; `unavailable` once the instance has shut down.
    public func refreshEntitlements() async throws -> Set<String> {
        let client = engine
        guard entitlementCache != nil || isKeeping else { throw EntitlementError.notConfigured }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Set<String>, EntitlementError>, Never>) in
            let answered = Locked(false)
            let reply: @Sendable (Result<Set<String>, EntitlementError>) -> Void = { result in
                if answered.firstTime() { continuation.resume(returning: result) }
            }
            guard !client.isInForkedChild else { return reply(.failure(.notConfigured)) }
            client.perform { timeline in
                guard !client.dropsCall("refreshEntitlements call", on: timeline) else {
                    return reply(.failure(.unavailable("the instance is shut down")))
                }
                guard let plugin = self.pillars(timeline).entitlements?(timeline) else { return reply(.failure(.notConfigured)) }
                plugin.refresh(reply: reply)
            }
        }
        return try result.get()
    }

    /// Calls `handler` with every later change of the entitlements served, on the executor, in
    /// order. Keep it short: the pipeline waits for it.
    package func onEntitlementsChange(_ handler: @escaping @Sendable (EntitlementChange) -> Void) {
        guard entitlementCache != nil || isKeeping else { return notConfigured("onEntitlementsChange") }
        engine.perform { self.pillars($0).entitlements?($0).onChange(handler) }
    }

    /// Every later change of the entitlements served, in order, until the instance shuts down
    /// (ends at once when entitlements are off).
    public var entitlementChanges: AsyncStream<EntitlementChange> {
        var made: AsyncStream<EntitlementChange>.Continuation?
        let stream = AsyncStream<EntitlementChange> { made = $0 }
        guard let continuation = made else { return stream }
        guard entitlementCache != nil || isKeeping else {
            notConfigured("entitlementChanges")
            continuation.finish()
            return stream
        }
        engine.perform { timeline in
            guard let plugin = self.pillars(timeline).entitlements?(timeline) else { return continuation.finish() }
            plugin.addStream(continuation)
        }
        return stream
    }

    /// Hands the evidence of a purchase (a StoreKit 2 signed transaction, as text) to the
    /// entitlement source, then refreshes. Queued on disk until the source takes it, once per
    /// `transactionId`, if it fits: at most 100 purchases and 4 MiB of evidence wait at once.
    ///
    /// - Parameters:
    ///   - transactionId: The purchase's transaction id; a second call with it while it waits
    ///     changes nothing.
    ///   - evidence: What the source verifies (at most 256 KiB).
    /// - Returns: Whether the purchase is kept (``PurchaseRecording/queued``,
    ///   ``PurchaseRecording/alreadyWaiting``) or refused, with the reason; a refused purchase
    ///   is the caller's to keep.
    @discardableResult
    public func recordPurchase(transactionId: String, evidence: String) -> PurchaseRecording {
        guard !isKeeping else {
            // A purchase is never kept where a cap could not be checked.
            return .refused(reason: "no instance is initialized yet: record the purchase after initialize(with:)")
        }
        let client = engine
        guard let cache = entitlementCache else {
            notConfigured("recordPurchase")
            return .refused(reason: "entitlements are off (InitOptions.entitlements)")
        }
        guard !client.isInForkedChild else {
            client.noteForkedChild()
            return .refused(reason: "this process is a fork() child of the one that created the instance")
        }
        guard client.lifecycle != .shutDown else {
            // Its purchase files are the next instance's: a purchase kept here would be lost.
            return .refused(reason: "the instance is shut down: record the purchase with the instance for its write key")
        }
        let recording = cache.admitPurchase(transactionId: transactionId, evidenceBytes: evidence.utf8.count)
        switch recording {
        case .queued:
            client.performCall("recordPurchase call") { timeline in
                self.pillars(timeline).entitlements?(timeline).record(transactionId: transactionId, evidence: evidence, timeline: timeline)
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
    func changingEntitledUser(_ cache: EntitlementCache, _ parts: Parts, _ call: () -> Void) {
        cache.beginUserChange()
        call()
        let slots = parts.pillarSlots
        let engine = parts.engine
        engine.perform { timeline in
            // After a shutdown the call itself was dropped (and logged): no user changed.
            guard !engine.dropsCall(nil, on: timeline) else { return }
            if let plugin = slots.found.entitlements?(timeline) {
                plugin.userDidChange(timeline)
            } else {
                cache.endUserChange(userId: nil)
            }
        }
    }

    /// On ``shared`` before binding (or bound to an instance without entitlements): the change
    /// is kept with the call and, once it runs on the bound instance's executor, switches that
    /// instance's entitlements to the user then in force — an instance that starts with another
    /// user stored must not keep serving that user's set.
    func changingUserOfBoundInstance(_ parts: Parts, _ call: () -> Void) {
        call()
        let engine = parts.engine
        engine.perform { timeline in
            // After a shutdown the call itself was dropped (and logged): no user changed.
            guard !engine.dropsCall(nil, on: timeline), let plugin = self.pillars(timeline).entitlements?(timeline) else { return }
            plugin.cache.beginUserChange()
            plugin.userDidChange(timeline)
        }
    }

    private func notConfigured(_ call: String) {
        engine.logger.warning("sdk.entitlements_off: \(call) ignored: entitlements are off (InitOptions.entitlements)")
    }
}
#endif
