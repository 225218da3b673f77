import Foundation

/// What ``AnalyticsInterface/forget()`` removed.
public struct ForgetReport: Sendable, Hashable {
    /// Queued events removed, from memory and from the disk log (the batch in flight, if any,
    /// included: its answer is not waited for).
    public var queuedEvents: Int
    /// Whether a stored identity (userId, groupId, traits) was removed; a new anonymousId is
    /// minted either way.
    public var identity: Bool
    /// Whether a stored consent state was removed (the initial consent is in force again).
    public var consent: Bool
    /// Whether super properties were removed.
    public var superProperties: Bool
    /// Breadcrumbs removed.
    public var breadcrumbs: Int
    /// Signals removed from the buffer.
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

extension MetaRouterClient {
    /// Adds `value` under `key` to the properties of every later `track`, `screen` and `page`
    /// call (the call's own keys win), persisted. A value that cannot be converted to JSON is
    /// dropped with a log line, as a property would be. With PII scrubbing on, the value is
    /// scrubbed before it is kept or stored; while analytics consent is withdrawn it is kept
    /// in memory only, not written to storage.
    package func registerSuperProperty(_ key: String, _ value: Any) {
        guard let converted = client.inputProblems.converted([key: value], root: "superProperties", call: "registerSuperProperty")[key] else { return }
        client.perform { timeline in
            let scrubbed = timeline.scrubbedForExport([key: converted])[key] ?? converted
            timeline.find(SuperPropertiesPlugin.self)?.register(key, scrubbed, persisting: timeline.collectsAnalytics)
        }
    }

    /// Like ``registerSuperProperty(_:_:)``, unless `key` is registered already.
    package func registerSuperPropertyOnce(_ key: String, _ value: Any) {
        guard let converted = client.inputProblems.converted([key: value], root: "superProperties", call: "registerSuperProperty")[key] else { return }
        client.perform { timeline in
            let scrubbed = timeline.scrubbedForExport([key: converted])[key] ?? converted
            timeline.find(SuperPropertiesPlugin.self)?.registerOnce(key, scrubbed, persisting: timeline.collectsAnalytics)
        }
    }

    /// Stops adding `key`.
    package func unregisterSuperProperty(_ key: String) {
        client.perform { $0.find(SuperPropertiesPlugin.self)?.unregister(key) }
    }


    /// Replaces the tracking plan (`nil` removes it), in call order: calls made before this one
    /// are checked against the previous plan, calls made after it against this one.
    package func setTrackingPlan(_ plan: TrackingPlan?) {
        let (mode, onViolation) = (options.trackingPlanMode, options.onPlanViolation)
        client.perform { timeline in
            if let plugin = timeline.find(TrackingPlanPlugin.self) {
                plugin.setPlan(plan)
            } else if let plan {
                timeline.add(TrackingPlanPlugin(plan: plan, mode: mode, onViolation: onViolation), at: .last)
            }
        }
    }

    /// Starts a new session, in call order: the next event carries `context.sessionStart`.
    /// Where sessions are not automatic (a server), this adds the session plugin.
    package func startSession() {
        let manual = SessionOptions(
            automatic: false, inactivityTimeout: options.sessions.inactivityTimeout, backgroundTimeout: options.sessions.backgroundTimeout)
        client.perform { timeline in
            if let plugin = timeline.find(SessionPlugin.self) { return plugin.startSession() }
            let plugin = SessionPlugin(options: manual)
            timeline.add(plugin, at: .after(ContextPlugin.self))
            plugin.startSession()
        }
    }

    /// Ends the session, in call order (with automatic sessions the next event starts one).
    package func endSession() {
        client.perform { $0.find(SessionPlugin.self)?.endSession() }
    }

    /// Sets the consent in force for the calls made after this one (and persists it); calls
    /// made before it are unaffected. Without analytics consent, calls are dropped before any
    /// plugin sees them and counted (`getDebugInfo().consentDroppedEvents`).
    package func setConsent(_ consent: ConsentState) {
        client.perform { $0.find(ConsentPlugin.self)?.set(consent) }
    }

    /// The consent in force once the calls made before this one have been handled.
    package func getConsent() async -> ConsentState {
        await onExecutor { $0.find(ConsentPlugin.self)?.state ?? .granted } ?? .granted
    }

    /// Wipes this instance's local state, in call order: the queued events (in memory and in
    /// its disk log), the stored identity, consent, super properties and breadcrumbs. Returns
    /// what it removed.
    /// Only the instance's own storage is touched: its log deletes the segment files it
    /// created, and its key-value store loses the keys the plugins own.
    package func forget() async -> ForgetReport {
        let storage = client.configuration.storage
        let found = await onExecutor { timeline in
            let queued = timeline.find(IngestionDestination.self)?.uploader?.status().queueLength ?? 0
            let hadIdentity = [IdentityKeys.userId, IdentityKeys.groupId, IdentityKeys.traits]
                .contains { storage.string(forKey: $0) != nil }
            let consent = timeline.find(ConsentPlugin.self)?.forget() ?? false
            let superProperties = timeline.find(SuperPropertiesPlugin.self)?.clear() ?? false
            let breadcrumbs = timeline.find(BreadcrumbsPlugin.self)?.clear() ?? 0
            let signals = timeline.find(SignalsPlugin.self)?.clear() ?? 0
            timeline.find(EntitlementsPlugin.self)?.forget()
            return ForgetReport(
                queuedEvents: queued, identity: hadIdentity, consent: consent, superProperties: superProperties, breadcrumbs: breadcrumbs,
                signals: signals)
        }
        // In a fork() child nothing is touched: the files are the parent's.
        guard let report = found else { return ForgetReport(queuedEvents: 0, identity: false, consent: false, superProperties: false) }
        await resetAndWait()
        client.logger.info(
            "sdk.forgotten: \(report.queuedEvents) queued event(s), identity \(report.identity ? "removed" : "none stored"), "
                + "consent \(report.consent ? "removed" : "none stored"), super properties \(report.superProperties ? "removed" : "none"), \(report.breadcrumbs) breadcrumb(s), \(report.signals) signal(s)")
        return report
    }
}
