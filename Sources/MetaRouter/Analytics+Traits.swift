import Foundation

// The methods each trait adds. Each block exists only with its trait on; none changes what
// `Analytics` conforms to, so turning a trait on anywhere in an app's dependency graph adds
// methods and breaks no one.

#if Privacy
extension Analytics {
    /// Turns PII scrubbing on or off for the calls made after this one.
    ///
    /// - Parameter enabled: Whether values that look like PII are masked before they leave.
    public func setScrubPII(_ enabled: Bool) { backend.setScrubPII(enabled) }

    /// Adds a property to every later `track`, `screen` and `page` call (the call's own keys
    /// win), persisted.
    ///
    /// - Parameters:
    ///   - key: The property's name.
    ///   - value: A JSON-compatible value; one that is not is reported and dropped.
    public func registerSuperProperty(_ key: String, _ value: Any) { backend.registerSuperProperty(key, value) }

    /// Like ``registerSuperProperty(_:_:)``, unless `key` is registered already.
    ///
    /// - Parameters:
    ///   - key: The property's name.
    ///   - value: A JSON-compatible value; one that is not is reported and dropped.
    public func registerSuperPropertyOnce(_ key: String, _ value: Any) { backend.registerSuperPropertyOnce(key, value) }

    /// Stops adding a super property.
    ///
    /// - Parameter key: The property's name.
    public func unregisterSuperProperty(_ key: String) { backend.unregisterSuperProperty(key) }

    /// Sets the consent in force for the calls made after this one.
    ///
    /// - Parameter consent: What the user agreed to, by channel.
    public func setConsent(_ consent: ConsentState) { backend.setConsent(consent) }
}
#endif

#if Rules
extension Analytics {
    /// Parses `text` (rule text, our JSON, or Segment settings) and, when it loads, swaps it in
    /// for every ``TransformPlugin`` of this instance whose rule set is called `name`, between
    /// two events. A text that does not load is rejected with its error and the old rules stay.
    ///
    /// - Parameters:
    ///   - name: The rule set's name.
    ///   - text: The new rule set; it must carry a higher `version`.
    /// - Throws: The error that says where and why `text` does not load.
    public func replaceRules(named name: String, with text: String) throws {
        let rules = try RuleSetLoader.load(text)
        perform { timeline in
            for plugin in timeline.findAll(TransformPlugin.self) where plugin.ruleSet.name == name { plugin.replace(with: rules) }
        }
    }
}
#endif

#if TrackingPlan
extension Analytics {
    /// Replaces the tracking plan for the calls made after this one.
    ///
    /// - Parameter plan: The plan, or `nil` for none.
    public func setTrackingPlan(_ plan: TrackingPlan?) { backend.setTrackingPlan(plan) }
}
#endif

#if ErrorCapture
extension Analytics {
    /// Reports an error as an `Error Captured` event: its type, message, where it was
    /// captured, the stack and the breadcrumbs, merged with `properties`.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - handled: `false` for one the app could not recover from.
    ///   - properties: JSON-compatible properties to add to the report.
    public func captureError(_ error: any Error, handled: Bool = true, properties: [String: Any]? = nil) {
        backend.captureError(error, handled: handled, properties: properties)
    }

    /// Adds a breadcrumb to the trail error reports carry.
    ///
    /// - Parameter breadcrumb: What happened, kept in call order.
    public func addBreadcrumb(_ breadcrumb: Breadcrumb) { backend.addBreadcrumb(breadcrumb) }
}
#endif

#if Signals
extension Analytics {
    /// Adds a signal to the buffer (with `InitOptions.signals` set), in call order.
    ///
    /// - Parameter signal: The signal.
    public func emit(_ signal: SignalContent) { backend.emit(signal) }

    /// Adds a user-defined signal whose data is `value` encoded as a JSON object.
    ///
    /// - Parameter value: A value that encodes as a JSON object.
    public func emit<Data: Encodable>(userDefined value: Data) { backend.emit(userDefined: value) }
}
#endif

#if Entitlements
extension Analytics {
    /// Whether the identified user is entitled to `key` now. Read from memory, never waiting
    /// for the network, the disk or the executor.
    ///
    /// - Parameter key: The entitlement, e.g. `"pro"`.
    /// - Returns: `false` whenever ``entitlements()`` is `nil`.
    public func isEntitled(_ key: String) -> Bool { backend.isEntitled(key) }

    /// The identified user's entitlements.
    ///
    /// - Returns: `nil` when none are known for that user: entitlements off
    ///   (`InitOptions.entitlements`), no user, an `identify`, `alias` or `reset` not yet
    ///   applied, or nothing fetched or stored for the user yet.
    public func entitlements() -> Set<String>? { backend.entitlements() }

    /// Fetches the identified user's entitlements now; on an outage the last known good set
    /// stays in force.
    ///
    /// - Returns: The entitlements fetched.
    /// - Throws: An ``EntitlementError``.
    public func refreshEntitlements() async throws -> Set<String> { try await backend.refreshEntitlements() }

    /// Every later change of the entitlements served, in order, until the instance shuts down.
    public var entitlementChanges: AsyncStream<EntitlementChange> { backend.entitlementChanges }

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
        backend.recordPurchase(transactionId: transactionId, evidence: evidence)
    }
}
#endif
