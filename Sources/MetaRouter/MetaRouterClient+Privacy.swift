import Foundation

/// What ``MetaRouterClient/forget()`` removed.
public struct ForgetReport: Sendable, Hashable {
    /// Queued events removed, from memory and from the disk log (the batch in flight, if any,
    /// included: its answer is not waited for).
    public var queuedEvents: Int
    /// Whether a stored identity (userId, groupId, traits) was removed; a new anonymousId is
    /// minted either way.
    public var identity: Bool
    /// Whether a stored consent state was removed (the initial consent is in force again).
    public var consent: Bool

    /// A report.
    public init(queuedEvents: Int, identity: Bool, consent: Bool) {
        self.queuedEvents = queuedEvents
        self.identity = identity
        self.consent = consent
    }
}

extension MetaRouterClient {
    /// Sets the consent in force for the calls made after this one (and persists it); calls
    /// made before it are unaffected. Without analytics consent, calls are dropped before any
    /// plugin sees them and counted (`getDebugInfo().consentDroppedEvents`).
    public func setConsent(_ consent: ConsentState) {
        client.perform { $0.find(ConsentPlugin.self)?.set(consent) }
    }

    /// The consent in force once the calls made before this one have been handled.
    public func getConsent() async -> ConsentState {
        await onExecutor { $0.find(ConsentPlugin.self)?.state ?? .granted }
    }

    /// Wipes this instance's local state, in call order: the queued events (in memory and in
    /// its disk log), the stored identity and the stored consent. Returns what it removed.
    /// Only the instance's own storage is touched: its log deletes the segment files it
    /// created, and its key-value store loses the keys the plugins own.
    public func forget() async -> ForgetReport {
        let clock = client.configuration.clock
        let storage = client.configuration.storage
        let report = await onExecutor { timeline in
            let queued = timeline.find(MetaRouterDestination.self)?.uploader?.status(at: clock.now()).queueLength ?? 0
            let hadIdentity = [IdentityKeys.userId, IdentityKeys.groupId, IdentityKeys.traits]
                .contains { storage.string(forKey: $0) != nil }
            let consent = timeline.find(ConsentPlugin.self)?.forget() ?? false
            return ForgetReport(queuedEvents: queued, identity: hadIdentity, consent: consent)
        }
        await client.resetAndWait()
        client.logger.info(
            "sdk.forgotten: \(report.queuedEvents) queued event(s), identity \(report.identity ? "removed" : "none stored"), "
                + "consent \(report.consent ? "removed" : "none stored")")
        return report
    }
}
