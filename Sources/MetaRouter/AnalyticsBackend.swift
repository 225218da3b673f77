import Foundation

/// What stands behind an ``Analytics`` object: an instance (``MetaRouterClient``) or, for
/// `shared`, the proxy that keeps calls until one is bound (``AnalyticsProxy``). Internal to
/// the package, so its requirements may follow the traits: the public face is the class.
package protocol AnalyticsBackend: AnyObject, Sendable {
    /// Records a user action.
    func track(_ event: String, properties: [String: Any]?, options: EventOptions?)
    /// Sets the current user and records their traits.
    func identify(_ userId: String, traits: [String: Any]?, options: EventOptions?)
    /// Sets the current group and records its traits.
    func group(_ groupId: String, traits: [String: Any]?, options: EventOptions?)
    /// Sets the current group with typed traits.
    func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions?)
    /// Records a screen view.
    func screen(_ name: String, properties: [String: Any]?, options: EventOptions?)
    /// Records a page view.
    func page(_ name: String, properties: [String: Any]?, options: EventOptions?)
    /// Links the current identity to `newUserId` and makes it the current userId.
    func alias(_ newUserId: String, options: EventOptions?)
    /// Records a user action with typed properties.
    func track<Properties: Encodable>(_ event: String, properties: Properties, options: EventOptions?)
    /// Sets the current user with typed traits.
    func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions?)
    /// Sets (validated as a UUID) or, with `nil`, clears the advertising identifier.
    func setAdvertisingId(_ advertisingId: String?)
    /// Clears the advertising identifier from storage and context.
    func clearAdvertisingId()
    /// Starts a new session.
    func startSession()
    /// Ends the session.
    func endSession()
    /// Wipes this instance's local state: queued events, identity, consent.
    func forget() async -> ForgetReport
    /// The device's anonymous id; waits for initialization, never empty.
    func getAnonymousId() async -> String
    /// Sends queued events now; covers every call made before it.
    func flush()
    /// Sends queued events and returns when the attempt has resolved.
    func flushAndWait() async
    /// Clears identity (a new anonymousId), the advertising id and the queue.
    func reset()
    /// Turns on debug logging.
    func enableDebugLogging()
    /// Sets the lowest level logged.
    func setLogLevel(_ level: LogLevel)
    /// Runs `body` with the engine: at once on an instance; on `shared`, once one is bound,
    /// in call order.
    func withEngine(_ body: @escaping @Sendable (AnalyticsClient) -> Void)
    /// The client's state.
    func getDebugInfo() async -> DebugInfo
    /// Adds (or removes) `Trace: true` on every upload.
    func setTracing(_ enabled: Bool)
    /// Keeps one deep-link URL for the next `Application Opened` event.
    func recordOpenedURL(_ url: URL, sourceApplication: String?)
    /// Delivers or persists what is queued, then stops; later calls are dropped.
    func shutdown() async
    /// Delivers or persists what is queued within `timeout` seconds, then stops. Returns
    /// whether every accepted event was delivered or written to disk in time.
    @discardableResult
    func shutdown(timeout: TimeInterval) async -> Bool
    /// Resets and waits until the reset is applied.
    func resetAndWait() async
    /// The instance itself; for `shared`, the bound one once one is.
    func boundInstance() async -> MetaRouterClient

    #if Privacy
    /// Turns PII scrubbing on or off for the calls made after this one.
    func setScrubPII(_ enabled: Bool)
    /// Adds a property to every later track, screen and page call.
    func registerSuperProperty(_ key: String, _ value: Any)
    /// Adds a property to every later call unless it is registered already.
    func registerSuperPropertyOnce(_ key: String, _ value: Any)
    /// Stops adding a super property.
    func unregisterSuperProperty(_ key: String)
    /// Sets the consent in force for the calls made after this one.
    func setConsent(_ consent: ConsentState)
    #endif
    #if TrackingPlan
    /// Replaces the tracking plan for the calls made after this one.
    func setTrackingPlan(_ plan: TrackingPlan?)
    #endif
    #if ErrorCapture
    /// Reports a caught error as an `Error Captured` event.
    func captureError(_ error: any Error, handled: Bool, properties: [String: Any]?)
    /// Adds a breadcrumb to the trail error reports carry.
    func addBreadcrumb(_ breadcrumb: Breadcrumb)
    #endif
    #if Signals
    /// Adds a signal to the buffer (with `InitOptions.signals` set), in call order.
    func emit(_ signal: SignalContent)
    /// Adds a user-defined signal whose data is `value` encoded as a JSON object.
    func emit<Data: Encodable>(userDefined value: Data)
    #endif
    #if Entitlements
    /// Whether the identified user is entitled to `key` now. Read from memory, never waiting
    /// for the network, the disk or the executor; `false` whenever ``entitlements()`` is `nil`.
    func isEntitled(_ key: String) -> Bool
    /// The identified user's entitlements, or `nil` when none are known for that user:
    /// entitlements off (`InitOptions.entitlements`), no user, an `identify`, `alias` or
    /// `reset` not yet applied, or nothing fetched or stored for the user yet.
    func entitlements() -> Set<String>?
    /// Fetches the identified user's entitlements now and returns them. Throws an
    /// ``EntitlementError``; on an outage the last known good set stays in force.
    func refreshEntitlements() async throws -> Set<String>
    /// Calls `handler` with every later change of the entitlements served, on the executor, in
    /// order. Keep it short: the pipeline waits for it.
    func onEntitlementsChange(_ handler: @escaping @Sendable (EntitlementChange) -> Void)
    /// Every later change of the entitlements served, in order, until the instance shuts down.
    var entitlementChanges: AsyncStream<EntitlementChange> { get }
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
    func recordPurchase(transactionId: String, evidence: String) -> PurchaseRecording
    #endif
}

