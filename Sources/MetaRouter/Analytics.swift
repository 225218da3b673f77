import Foundation

/// An analytics instance: the one public type an app or a server calls. Make one with
/// ``initialize(with:)`` (which also binds ``shared``) or, for a server with one instance per
/// tenant, ``instance(for:)``.
///
/// Every method may be called from any thread and returns at once; the `async` ones wait for
/// the pipeline. Calls take effect in the order they were made. The methods of a pillar built
/// as a trait (consent, super properties and PII scrubbing, the tracking plan, error capture,
/// signals, entitlements) are added by its trait, which is on by default; a trait adds
/// methods and never changes what this class conforms to.
///
/// The class is final and conforms to nothing of ours, so there is nothing to mock: a test
/// makes a real instance whose destination keeps what it receives (`MetaRouterTesting`'s
/// `CapturingDestination`, see `Docs/Testing.md`).
public final class Analytics: Sendable {
    /// The instance behind this object, or for ``shared`` the proxy that keeps calls until an
    /// instance is bound.
    package let backend: any AnalyticsBackend
    /// The instance's engine when this object is an instance (not ``shared``): the event
    /// calls go straight to it.
    private let engine: AnalyticsClient?

    init(instance: MetaRouterClient) {
        backend = instance
        engine = instance.client
    }

    init(shared proxy: AnalyticsProxy) {
        backend = proxy
        engine = nil
    }

    /// The instance behind this object; `nil` for ``shared``.
    package var instance: MetaRouterClient? { backend as? MetaRouterClient }

    // MARK: Events

    /// Records a user action.
    ///
    /// - Parameters:
    ///   - event: The action's name, e.g. `"Order Completed"`.
    ///   - properties: JSON-compatible values; one that is not is reported and dropped, the
    ///     event kept.
    ///   - options: Per-call identity, context, timestamp or destinations.
    public func track(_ event: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        if let engine { return engine.track(event, properties: properties, options: options) }
        backend.track(event, properties: properties, options: options)
    }

    /// Records a user action with typed properties, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - event: The action's name.
    ///   - properties: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context, timestamp or destinations.
    public func track<Properties: Encodable>(_ event: String, properties: Properties, options: EventOptions? = nil) {
        backend.track(event, properties: properties, options: options)
    }

    /// Sets the current user and records their traits.
    ///
    /// - Parameters:
    ///   - userId: The user's id in the app's own system.
    ///   - traits: JSON-compatible traits of the user.
    ///   - options: Per-call identity, context or timestamp.
    public func identify(_ userId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        backend.identify(userId, traits: traits, options: options)
    }

    /// Sets the current user with typed traits, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - userId: The user's id in the app's own system.
    ///   - traits: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context or timestamp.
    public func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions? = nil) {
        backend.identify(userId, traits: traits, options: options)
    }

    /// Sets the current group and records its traits.
    ///
    /// - Parameters:
    ///   - groupId: The group's (account's, team's) id.
    ///   - traits: JSON-compatible traits of the group.
    ///   - options: Per-call identity, context or timestamp.
    public func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        if let engine { return engine.group(groupId, traits: traits, options: options) }
        backend.group(groupId, traits: traits, options: options)
    }

    /// Sets the current group with typed traits, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - groupId: The group's (account's, team's) id.
    ///   - traits: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context or timestamp.
    public func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions? = nil) {
        if let engine { return engine.group(groupId, traits: traits, options: options) }
        backend.group(groupId, traits: traits, options: options)
    }

    /// Records a screen view.
    ///
    /// - Parameters:
    ///   - name: The screen's name.
    ///   - properties: JSON-compatible properties of the view.
    ///   - options: Per-call identity, context or timestamp.
    public func screen(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        if let engine { return engine.screen(name, properties: properties, options: options) }
        backend.screen(name, properties: properties, options: options)
    }

    /// Records a page view.
    ///
    /// - Parameters:
    ///   - name: The page's name.
    ///   - properties: JSON-compatible properties of the view.
    ///   - options: Per-call identity, context or timestamp.
    public func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        if let engine { return engine.page(name, properties: properties, options: options) }
        backend.page(name, properties: properties, options: options)
    }

    /// Links the current identity to `newUserId` and makes it the current userId.
    ///
    /// - Parameters:
    ///   - newUserId: The user's new id.
    ///   - options: Per-call identity, context or timestamp.
    public func alias(_ newUserId: String, options: EventOptions? = nil) {
        backend.alias(newUserId, options: options)
    }

    /// Hands a fully built event (replayed from a file, forwarded from elsewhere) to the
    /// pipeline, in order with the other calls; the plugins enrich and deliver it as any other.
    ///
    /// - Parameter event: The event; its `messageId` and `timestamp` are kept.
    public func process(_ event: Event) {
        if let engine { return engine.process(event) }
        backend.withEngine { $0.process(event) }
    }

    // MARK: Identity and sessions

    /// Sets (validated as a UUID) or, with `nil`, clears the advertising identifier.
    ///
    /// - Parameter advertisingId: The IDFA, or `nil`.
    public func setAdvertisingId(_ advertisingId: String?) { backend.setAdvertisingId(advertisingId) }

    /// Clears the advertising identifier from storage and context.
    public func clearAdvertisingId() { backend.clearAdvertisingId() }

    /// Starts a new session: the next event carries `context.sessionStart`.
    public func startSession() { backend.startSession() }

    /// Ends the session.
    public func endSession() { backend.endSession() }

    /// The device's anonymous id; waits for initialization, never empty.
    ///
    /// - Returns: The anonymous id (with no device identity, a fresh UUID each time).
    public func getAnonymousId() async -> String { await backend.getAnonymousId() }

    /// Clears identity (a new anonymousId), the advertising id and the queue.
    public func reset() { backend.reset() }

    /// Resets and waits until the reset is applied.
    public func resetAndWait() async { await backend.resetAndWait() }

    /// Wipes this instance's local state: queued events, identity, consent, super properties,
    /// breadcrumbs and signals.
    ///
    /// - Returns: What was wiped.
    public func forget() async -> ForgetReport { await backend.forget() }

    // MARK: Delivery

    /// Sends queued events now; covers every call made before it.
    public func flush() { backend.flush() }

    /// Sends queued events and returns when the attempt has resolved.
    public func flushAndWait() async { await backend.flushAndWait() }

    /// Adds (or removes) `Trace: true` on every upload.
    ///
    /// - Parameter enabled: Whether uploads carry the header.
    public func setTracing(_ enabled: Bool) { backend.setTracing(enabled) }

    /// Keeps one deep-link URL for the next `Application Opened` event.
    ///
    /// - Parameters:
    ///   - url: The URL the app was opened with.
    ///   - sourceApplication: The bundle id of the app that opened it, if known.
    public func recordOpenedURL(_ url: URL, sourceApplication: String?) {
        backend.recordOpenedURL(url, sourceApplication: sourceApplication)
    }

    /// Delivers or persists what is queued within `timeout` seconds (10 by default), then stops;
    /// later calls are dropped. When `timeout` passes with a request still out, delivery stops
    /// anyway: the event log is closed and released as this returns, and the interrupted batch
    /// is sent again, under its `Idempotency-Key`, by the next instance that opens the log.
    ///
    /// - Parameter timeout: Seconds to wait for the plugins.
    /// - Returns: Whether every accepted event was delivered or written to disk in time.
    @discardableResult
    public func shutdown(timeout: TimeInterval = Defaults.shutdownTimeoutSeconds) async -> Bool {
        await backend.shutdown(timeout: timeout)
    }

    // MARK: Diagnostics

    /// Turns on debug logging.
    public func enableDebugLogging() { backend.enableDebugLogging() }

    /// Sets the lowest level of the lines this instance logs.
    ///
    /// - Parameter level: Lines below it are not even formatted.
    public func setLogLevel(_ level: LogLevel) { backend.setLogLevel(level) }

    /// The instance's state: identity, queue, delivery, drops.
    ///
    /// - Returns: A snapshot read on the executor, consistent with itself.
    public func getDebugInfo() async -> DebugInfo { await backend.getDebugInfo() }
}
