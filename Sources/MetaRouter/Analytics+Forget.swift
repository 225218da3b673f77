import Foundation

/// What ``Analytics/forget()`` removed.
public struct ForgetReport: Sendable, Hashable {
    /// Queued events removed, from memory and from the disk log (the batch in flight, if any,
    /// included: its answer is not waited for).
    public var queuedEvents: Int
    /// Whether a stored identity (userId, groupId, traits) was removed; a new anonymousId is
    /// minted either way.
    public var identity: Bool
    /// Whether a stored consent state was removed (the initial consent is in force again);
    /// always `false` without the `Privacy` trait.
    public var consent: Bool
    /// Whether super properties were removed; always `false` without the `Privacy` trait.
    public var superProperties: Bool
    /// Breadcrumbs removed (0 without the `ErrorCapture` trait).
    public var breadcrumbs: Int
    /// Signals removed from the buffer (0 without the `Signals` trait).
    public var signals: Int

    /// A report.
    package init(queuedEvents: Int, identity: Bool, consent: Bool, superProperties: Bool, breadcrumbs: Int = 0, signals: Int = 0) {
        self.queuedEvents = queuedEvents
        self.identity = identity
        self.consent = consent
        self.superProperties = superProperties
        self.breadcrumbs = breadcrumbs
        self.signals = signals
    }
}

extension Analytics {
    /// Wipes this instance's local state, in call order: the queued events (in memory and in
    /// its disk log), the stored identity, consent, super properties, breadcrumbs and signals.
    /// Only the instance's own storage is touched: its log deletes the segment files it
    /// created, and its key-value store loses the keys the plugins own. On an instance that has
    /// shut down nothing is wiped — its files are the next instance's — and the report is empty.
    ///
    /// - Returns: What was wiped.
    public func forget() async -> ForgetReport {
        let found = await onExecutor { timeline -> ForgetReport? in
            // After a shutdown the files are the next instance's: nothing is touched.
            if self.engine.dropsCall("forget call", on: timeline) { return nil }
            let storage = self.engine.configuration.storage
            let queued = self.pillars(timeline).destination?(timeline).uploader?.status().queueLength ?? 0
            let hadIdentity = [IdentityKeys.userId, IdentityKeys.groupId, IdentityKeys.traits]
                .contains { storage.string(forKey: $0) != nil }
            var report = ForgetReport(queuedEvents: queued, identity: hadIdentity, consent: false, superProperties: false)
            #if Privacy
            report.consent = self.pillars(timeline).consent?(timeline).forget() ?? false
            report.superProperties = self.pillars(timeline).superProperties?(timeline).clear() ?? false
            #endif
            #if ErrorCapture
            report.breadcrumbs = self.pillars(timeline).breadcrumbs?(timeline).clear() ?? 0
            #endif
            #if Signals
            report.signals = self.pillars(timeline).signals?(timeline).clear() ?? 0
            #endif
            #if Entitlements
            self.pillars(timeline).entitlements?(timeline).forget()
            #endif
            return report
        }
        // In a fork() child nothing is touched either: the files are the parent's.
        guard let report = found ?? nil else { return ForgetReport(queuedEvents: 0, identity: false, consent: false, superProperties: false) }
        await resetAndWait()
        engine.logger.info(
            "sdk.forgotten: \(report.queuedEvents) queued event(s), identity \(report.identity ? "removed" : "none stored"), "
                + "consent \(report.consent ? "removed" : "none stored"), super properties \(report.superProperties ? "removed" : "none"), \(report.breadcrumbs) breadcrumb(s), \(report.signals) signal(s)")
        return report
    }
}
