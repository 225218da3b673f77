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
    /// What an instance runs on: its engine, the options it was made with and its handles on
    /// the built-in plugins. Fixed for an instance; for ``shared``, the bound instance's, or
    /// before one is bound those of an engine that keeps the calls (``SharedSlot``). A class:
    /// every call reads them, and a reference is copied without the Swift runtime's help.
    package final class Parts: Sendable {
        /// The engine: ordered ingress, executor and timeline.
        package let engine: AnalyticsClient
        /// The options the instance was created with.
        package let options: InitOptions
        /// Why the options were rejected, when they were; the instance is then inert.
        package let configurationError: String?
        /// The built-in plugins the instance started with, each reached through a handle made
        /// when they were built, and what the pillars keep beside them.
        let pillarSlots: PillarSlots
        /// Whether a request for this write key with other options was reported (once).
        let reportedOtherOptions = Locked(false)
        /// Set as the instance's shutdown begins, before ``shared`` lets go of it: ``shared``
        /// is never bound to it after, so calls kept for the next instance never reach one
        /// whose executor is shutting down.
        let shuttingDown = Locked(false)

        init(engine: AnalyticsClient, options: InitOptions, configurationError: String?, pillarSlots: PillarSlots) {
            self.engine = engine
            self.options = options
            self.configurationError = configurationError
            self.pillarSlots = pillarSlots
        }
    }

    /// An instance's parts; `nil` for ``shared``, whose parts are in ``slot``.
    private let fixed: Parts?
    /// ``shared``'s engine slot; `nil` for an instance.
    let slot: SharedSlot?

    init(_ parts: Parts) {
        fixed = parts
        slot = nil
    }

    init(shared slot: SharedSlot) {
        fixed = nil
        self.slot = slot
    }

    /// The parts the calls go to now: an instance's own; for ``shared``, the bound instance's
    /// or, before binding, those of the engine that keeps the calls.
    package var parts: Parts {
        if let fixed { return fixed }
        // Every object is made with `fixed` or `slot`.
        return slot.unsafelyUnwrapped.parts
    }

    /// The engine the calls go to now (see ``parts``).
    package var engine: AnalyticsClient {
        if let fixed { return fixed.engine }
        return slot.unsafelyUnwrapped.parts.engine
    }
    /// The options the instance was created with.
    package var options: InitOptions { parts.options }
    /// Why the options were rejected, when they were; the instance is then inert.
    package var configurationError: String? { parts.configurationError }
    /// The handles on the built-in plugins of the instance whose executor runs `timeline`; on
    /// the executor only, where each hands out its plugin. Resolved from the timeline, not from
    /// ``parts``: work an instance still runs after ``shared`` was bound to another reaches its
    /// own plugins.
    func pillars(_ timeline: Timeline) -> Pillars { instance(on: timeline)?.slots.found ?? Pillars() }

    /// What the instance whose executor runs `timeline` keeps beside its engine (``Companion``);
    /// `nil` on an engine that keeps `shared`'s calls, which runs none of them itself.
    func instance(on timeline: Timeline) -> Companion? { timeline.client?.companion as? Companion }

    /// What an instance keeps beside its engine, for work on the executor to find from the
    /// timeline: its handles on the built-ins and its options.
    final class Companion: Sendable {
        let slots: PillarSlots
        let options: InitOptions
        init(slots: PillarSlots, options: InitOptions) {
            self.slots = slots
            self.options = options
        }
    }

    // MARK: Events

    /// Records a user action.
    ///
    /// - Parameters:
    ///   - event: The action's name, e.g. `"Order Completed"`.
    ///   - properties: JSON-compatible values; one that is not is reported and dropped, the
    ///     event kept.
    ///   - options: Per-call identity, context, timestamp or destinations.
    public func track(_ event: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        engine.track(event, properties: properties, options: options)
    }

    /// Records a user action with typed properties, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - event: The action's name.
    ///   - properties: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context, timestamp or destinations.
    public func track<Properties: Encodable>(_ event: String, properties: Properties, options: EventOptions? = nil) {
        engine.track(event, properties: properties, options: options)
    }

    /// Sets the current user and records their traits.
    ///
    /// - Parameters:
    ///   - userId: The user's id in the app's own system.
    ///   - traits: JSON-compatible traits of the user.
    ///   - options: Per-call identity, context or timestamp.
    public func identify(_ userId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        let engine = engine
        changingUser { engine.identify(userId, traits: traits, options: options) }
    }

    /// Sets the current user with typed traits, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - userId: The user's id in the app's own system.
    ///   - traits: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context or timestamp.
    public func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions? = nil) {
        let engine = engine
        changingUser { engine.identify(userId, traits: traits, options: options) }
    }

    /// Sets the current group and records its traits.
    ///
    /// - Parameters:
    ///   - groupId: The group's (account's, team's) id.
    ///   - traits: JSON-compatible traits of the group.
    ///   - options: Per-call identity, context or timestamp.
    public func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        engine.group(groupId, traits: traits, options: options)
    }

    /// Sets the current group with typed traits, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - groupId: The group's (account's, team's) id.
    ///   - traits: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context or timestamp.
    public func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions? = nil) {
        engine.group(groupId, traits: traits, options: options)
    }

    /// Records a screen view.
    ///
    /// - Parameters:
    ///   - name: The screen's name.
    ///   - properties: JSON-compatible properties of the view.
    ///   - options: Per-call identity, context or timestamp.
    public func screen(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        engine.screen(name, properties: properties, options: options)
    }

    /// Records a screen view with typed properties, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - name: The screen's name.
    ///   - properties: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context or timestamp.
    public func screen<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        engine.screen(name, properties: properties, options: options)
    }

    /// Records a page view.
    ///
    /// - Parameters:
    ///   - name: The page's name.
    ///   - properties: JSON-compatible properties of the view.
    ///   - options: Per-call identity, context or timestamp.
    public func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        engine.page(name, properties: properties, options: options)
    }

    /// Records a page view with typed properties, encoded as a JSON object.
    ///
    /// - Parameters:
    ///   - name: The page's name.
    ///   - properties: A value that encodes as a JSON object.
    ///   - options: Per-call identity, context or timestamp.
    public func page<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        engine.page(name, properties: properties, options: options)
    }

    /// Links the current identity to `newUserId` and makes it the current userId.
    ///
    /// - Parameters:
    ///   - newUserId: The user's new id.
    ///   - options: Per-call identity, context or timestamp.
    public func alias(_ newUserId: String, options: EventOptions? = nil) {
        let engine = engine
        changingUser { engine.alias(newUserId, options: options) }
    }

    /// Hands a fully built event (replayed from a file, forwarded from elsewhere) to the
    /// pipeline, in order with the other calls; the plugins enrich and deliver it as any other.
    ///
    /// - Parameter event: The event; its `messageId` and `timestamp` are kept.
    public func process(_ event: Event) {
        engine.process(event)
    }

    // MARK: Identity and sessions

    /// Sets (validated as a UUID) or, with `nil`, clears the advertising identifier.
    ///
    /// - Parameter advertisingId: The IDFA, or `nil`.
    public func setAdvertisingId(_ advertisingId: String?) {
        engine.performCall("setAdvertisingId call") { self.pillars($0).advertisingId?($0).set(advertisingId) }
    }

    /// Clears the advertising identifier from storage and context.
    public func clearAdvertisingId() {
        engine.performCall("clearAdvertisingId call") { self.pillars($0).advertisingId?($0).clear() }
    }

    /// Starts a new session: the next event carries `context.sessionStart`. Where sessions are
    /// not automatic (a server), this adds the session plugin.
    public func startSession() {
        engine.performCall("startSession call") { timeline in
            let slots = self.parts.pillarSlots
            if let plugin = slots.session { return plugin.startSession() }
            let sessions = self.options.sessions
            let plugin = SessionPlugin(options: SessionOptions(
                automatic: false, inactivityTimeout: sessions.inactivityTimeout, backgroundTimeout: sessions.backgroundTimeout))
            timeline.add(plugin, at: .after(ContextPlugin.self))
            slots.session = plugin
            plugin.startSession()
        }
    }

    /// Ends the session.
    public func endSession() {
        engine.performCall("endSession call") { _ in self.parts.pillarSlots.session?.endSession() }
    }

    /// The device's anonymous id; waits for initialization, never empty.
    ///
    /// - Returns: The anonymous id (with no device identity, a fresh UUID each time).
    public func getAnonymousId() async -> String {
        let found = await onExecutor { self.pillars($0).identity?($0).anonymousId } ?? nil
        return found.flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString.lowercased()
    }

    /// Clears identity (a new anonymousId), the advertising id and the queue: every event
    /// accepted before it and not yet delivered, the disk log's included, is dropped and counted
    /// (`DropReason.reset`); calls after it are kept.
    public func reset() {
        let engine = engine
        changingUser { engine.reset() }
    }

    /// Resets and waits until the reset is applied.
    public func resetAndWait() async {
        reset()
        await engine.settle()
    }

    // MARK: Delivery

    /// Sends queued events now; covers every call made before it.
    public func flush() { engine.flush() }

    /// Sends queued events and returns when the attempt has resolved.
    public func flushAndWait() async { await engine.flushAndWait() }

    /// Adds (or removes) `Trace: true` on every upload.
    ///
    /// - Parameter enabled: Whether uploads carry the header.
    public func setTracing(_ enabled: Bool) {
        engine.performCall("setTracing call") { self.pillars($0).destination?($0).uploader?.tracing = enabled }
    }

    /// Keeps one deep-link URL for the next `Application Opened` event (last wins). With
    /// lifecycle tracking off it logs a warning and does nothing.
    ///
    /// - Parameters:
    ///   - url: The URL the app was opened with.
    ///   - sourceApplication: The bundle id of the app that opened it, if known.
    public func recordOpenedURL(_ url: URL, sourceApplication: String?) {
        let current = parts
        guard current.options.trackLifecycleEvents || slot?.isBound == false else {
            current.engine.logger.warning("sdk.deep_link_ignored: recordOpenedURL ignored: lifecycle tracking is off (InitOptions.trackLifecycleEvents)")
            return
        }
        current.engine.performCall("recordOpenedURL call") { self.pillars($0).lifecycle?($0).recordOpenedURL(url, sourceApplication: sourceApplication) }
    }

    /// Delivers or persists what is queued within `timeout` seconds (10 by default), then stops;
    /// later calls are dropped. When `timeout` passes with a request still out, delivery stops
    /// anyway: nothing is sent after this returns, the event log is closed and released as it
    /// returns (or, when the executor is still behind, once it has written what was called
    /// before the shutdown), and the interrupted batch is sent again, under its
    /// `Idempotency-Key`, by the next instance that opens the log. The
    /// instance is forgotten as the shutdown begins: ``instance(for:)`` with its write key then
    /// creates a new one, which keeps its calls in order and opens the log only once this one
    /// has finished; ``shared``, bound to it, keeps its calls for the next
    /// ``initialize(with:)``. On ``shared`` before an instance is bound, does nothing.
    ///
    /// - Parameter timeout: Seconds to wait for the plugins.
    /// - Returns: Whether every accepted event was delivered or written to disk in time.
    @discardableResult
    public func shutdown(timeout: TimeInterval = Defaults.shutdownTimeoutSeconds) async -> Bool {
        guard let current = fixed ?? slot?.bound else { return true }
        // A fork() child takes none of the parent's locks, the registry's included.
        guard !current.engine.isInForkedChild else { return await current.engine.shutdown(timeout: timeout) }
        let listed = Self.beginClosing(current)
        let finished = await current.engine.shutdown(timeout: timeout)
        if listed { Self.finishClosing(current) }
        return finished
    }

    // MARK: Diagnostics

    /// Turns on debug logging.
    public func enableDebugLogging() {
        engine.logger.minimumLevel = .debug
        engine.perform { timeline in
            let current = self.parts
            current.engine.logger.minimumLevel = .debug
            #if Privacy
            // The scrubber names sensitive-looking keys in debug mode, even while it is off.
            guard current.pillarSlots.scrubber == nil else { return }
            let scrubber = PIIScrubPlugin(enabled: false, options: current.options.piiScrubbing)
            timeline.add(scrubber, at: .after(SuperPropertiesPlugin.self))
            current.pillarSlots.scrubber = scrubber
            #endif
        }
    }

    /// Sets the lowest level of the lines this instance logs.
    ///
    /// - Parameter level: Lines below it are not even formatted.
    public func setLogLevel(_ level: LogLevel) {
        engine.logger.minimumLevel = level
        if slot?.isBound == false { engine.perform { _ in self.engine.logger.minimumLevel = level } }
    }

    /// The instance's state: identity, queue, delivery, drops.
    ///
    /// - Returns: A snapshot read on the executor, consistent with itself.
    public func getDebugInfo() async -> DebugInfo {
        guard let slot else { return await debugInfo(of: fixed.unsafelyUnwrapped) }
        let dropped = slot.droppedBeforeInitialize
        var info: DebugInfo
        if let bound = slot.bound { info = await debugInfo(of: bound) } else { info = slot.unboundDebugInfo() }
        if dropped > 0 { info.stats.dropped[.overflow, default: 0] += dropped }
        return info
    }

    // MARK: Engine

    /// Runs `call` (an identify, alias or reset) as an identity change: with entitlements on,
    /// the entitlements served go blank until the new user's are known.
    func changingUser(_ call: () -> Void) {
        let current = parts
        guard !current.engine.isInForkedChild else { return current.engine.noteForkedChild() }
        #if Entitlements
        if let cache = current.pillarSlots.entitlementCache { return changingEntitledUser(cache, current, call) }
        if slot != nil { return changingUserOfBoundInstance(current, call) }
        #endif
        call()
    }

    /// Runs `read` on the executor after everything submitted before, and returns its result.
    /// A shut-down instance still answers: its executor keeps draining. On ``shared`` before
    /// binding, the answer waits for the bound instance. `nil` in a `fork()` child, where the
    /// executor does not run.
    package func onExecutor<Value: Sendable>(_ read: @escaping @Sendable (Timeline) -> Value) async -> Value? {
        let engine = engine
        guard !engine.isInForkedChild else {
            engine.noteForkedChild()
            return nil
        }
        return await withCheckedContinuation { continuation in
            engine.perform { continuation.resume(returning: read($0)) }
        }
    }
}
