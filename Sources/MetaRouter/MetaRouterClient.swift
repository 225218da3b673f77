import Foundation
import MetaRouterAdvertisingID

/// One analytics instance as the seed API presents it: an ``AnalyticsClient`` with the
/// default plugins, plus the options it was made with.
package final class MetaRouterClient: AnalyticsBackend {
    /// The engine: ordered ingress, executor and timeline. Use it to add plugins.
    package let client: AnalyticsClient
    /// The options this instance was created with.
    package let options: InitOptions
    /// Why the options were rejected, when they were; the instance is then inert.
    package let configurationError: String?
    /// The built-in plugins this instance started with, each reached through a handle found
    /// when they were built, and what the pillars keep beside them.
    let pillarSlots: PillarSlots
    /// The handles on the built-in plugins; read only on the executor.
    var pillars: Pillars { pillarSlots.found }
    /// Whether a request for this write key with other options was reported (once).
    private let reportedOtherOptions = Locked(false)

    /// Warns, once per instance, when `asked` differs from the options this instance was made
    /// with in a way that changes where or how it delivers: the caller gets this instance, not
    /// one made with `asked`.
    func noteRequest(with asked: InitOptions) {
        let differing = [
            ("ingestionHost", asked.ingestionHost != options.ingestionHost), ("storageDirectory", asked.storageDirectory != options.storageDirectory),
            ("identityMode", asked.identityMode != options.identityMode), ("flushIntervalSeconds", asked.flushIntervalSeconds != options.flushIntervalSeconds),
            ("maxQueueEvents", asked.maxQueueEvents != options.maxQueueEvents), ("maxDiskEvents", asked.maxDiskEvents != options.maxDiskEvents),
            ("maxDiskBytes", asked.maxDiskBytes != options.maxDiskBytes),
        ].filter(\.1).map(\.0)
        guard !differing.isEmpty, reportedOtherOptions.firstTime() else { return }
        client.logger.warning(
            "sdk.instance_exists: an instance for write key \(DebugInfo.mask(options.writeKey)) exists already with other options "
                + "(\(differing.joined(separator: ", "))); it is returned as it is, its options kept: shut it down first to change them")
    }

    init(client: AnalyticsClient, options: InitOptions, configurationError: String?, pillars: PillarSlots = PillarSlots()) {
        self.client = client
        self.options = options
        self.configurationError = configurationError
        pillarSlots = pillars
    }

    /// Gives the delivery queue room for `count` events replayed into it at once (what
    /// `shared` kept before `initialize(with:)`), ordered before them.
    func makeRoomForReplay(_ count: Int) {
        guard count > 0 else { return }
        client.perform { self.pillars.destination?($0).uploader?.makeRoom(forMore: count) }
    }

    /// Records a user action.
    package func track(_ event: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        client.track(event, properties: properties, options: options)
    }

    /// Sets the current user and records their traits.
    package func identify(_ userId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        changingUser { client.identify(userId, traits: traits, options: options) }
    }

    /// Sets the current group and records its traits.
    package func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        client.group(groupId, traits: traits, options: options)
    }

    /// Sets the current group with typed traits.
    package func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions? = nil) {
        client.group(groupId, traits: traits, options: options)
    }

    /// Records a screen view.
    package func screen(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        client.screen(name, properties: properties, options: options)
    }

    /// Records a page view.
    package func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        client.page(name, properties: properties, options: options)
    }

    /// Links the current identity to `newUserId`.
    package func alias(_ newUserId: String, options: EventOptions? = nil) {
        changingUser { client.alias(newUserId, options: options) }
    }

    /// Records a user action with typed properties.
    package func track<Properties: Encodable>(_ event: String, properties: Properties, options: EventOptions? = nil) {
        client.track(event, properties: properties, options: options)
    }

    /// Sets the current user with typed traits.
    package func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions? = nil) {
        changingUser { client.identify(userId, traits: traits, options: options) }
    }

    /// Sets or clears the advertising id, in order with other calls.
    package func setAdvertisingId(_ advertisingId: String?) {
        client.perform { self.pillars.advertisingId?($0).set(advertisingId) }
    }

    /// Clears the advertising id, in order with other calls.
    package func clearAdvertisingId() {
        client.perform { self.pillars.advertisingId?($0).clear() }
    }

    /// The anonymous id once the identity is loaded. Without a device identity (no identity
    /// plugin, or per-call identity mode), a fresh lowercase UUID each time (never empty): a
    /// server may use it for a new visitor and pass it per call.
    package func getAnonymousId() async -> String {
        let found = await onExecutor { self.pillars.identity?($0).anonymousId } ?? nil
        return found.flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString.lowercased()
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

    /// Sends queued events now.
    package func flush() { client.flush() }

    /// Sends queued events and waits for the attempt to resolve.
    package func flushAndWait() async { await client.flushAndWait() }

    /// Clears identity, the advertising id and the queue.
    package func reset() { changingUser { client.reset() } }

    /// Resets and waits until the reset is applied.
    package func resetAndWait() async {
        reset()
        await client.settle()
    }

    /// Turns on debug logging.
    package func enableDebugLogging() {
        client.logger.minimumLevel = .debug
        #if Privacy
        // The scrubber names sensitive-looking keys in debug mode, even while it is off.
        let scrubbing = options.piiScrubbing
        client.perform { timeline in
            guard timeline.find(PIIScrubPlugin.self) == nil else { return }
            timeline.add(PIIScrubPlugin(enabled: false, options: scrubbing), at: .after(SuperPropertiesPlugin.self))
        }
        #endif
    }

    /// This instance.
    package func boundInstance() async -> MetaRouterClient { self }

    /// Sets the lowest level logged, at once.
    package func setLogLevel(_ level: LogLevel) { client.logger.minimumLevel = level }

    /// Runs `body` with the engine, at once.
    package func withEngine(_ body: @escaping @Sendable (AnalyticsClient) -> Void) { body(client) }

    /// Adds or removes `Trace: true` on uploads, in order with other calls.
    package func setTracing(_ enabled: Bool) {
        client.perform { self.pillars.destination?($0).uploader?.tracing = enabled }
    }

    /// Keeps `url` (last wins) for the next `Application Opened`. With lifecycle tracking off
    /// it logs a warning and does nothing.
    package func recordOpenedURL(_ url: URL, sourceApplication: String?) {
        guard options.trackLifecycleEvents else {
            client.logger.warning("sdk.deep_link_ignored: recordOpenedURL ignored: lifecycle tracking is off (InitOptions.trackLifecycleEvents)")
            return
        }
        client.perform { self.pillars.lifecycle?($0).recordOpenedURL(url, sourceApplication: sourceApplication) }
    }

    /// Delivers what is queued, then stops.
    package func shutdown() async { await shutdown(timeout: Defaults.shutdownTimeoutSeconds) }

    /// Delivers or persists what is queued, stops timers, releases the event log and its lock,
    /// and forgets this instance: `instance(for:)` with the same write key then creates a new
    /// one, which reopens the same log. Waits at most `timeout` seconds for the plugins.
    /// Returns `false` when a plugin ran out of time or accepted events could be neither
    /// delivered nor written to disk.
    @discardableResult
    package func shutdown(timeout: TimeInterval) async -> Bool {
        // A fork() child takes none of the parent's locks, the registry's included.
        guard !client.isInForkedChild else { return await client.shutdown(timeout: timeout) }
        let finished = await client.shutdown(timeout: timeout)
        MetaRouter.Analytics.forget(self)
        return finished
    }

    /// The seed's debug fields, read on the executor so they are consistent with each other.
    package func getDebugInfo() async -> DebugInfo {
        guard !client.isInForkedChild else {
            client.noteForkedChild()
            return Self.inertInForkedChild(options)
        }
        guard let snapshot = await onExecutor({ self.debugInfoParts(on: $0) }) else { return Self.inertInForkedChild(options) }
        return debugInfo(from: snapshot)
    }

    /// What the debug fields read from the plugins, on the executor.
    private func debugInfoParts(on timeline: Timeline) -> DebugInfoParts {
        let identity = pillars.identity?(timeline)
        let destination = pillars.destination?(timeline)
        let uploader = destination?.uploader
        var parts = DebugInfoParts(
            anonymousId: identity?.anonymousId, userId: identity?.userId, groupId: identity?.groupId,
            advertisingId: pillars.advertisingId?(timeline).advertisingId,
            delivery: uploader?.status(), openDescriptors: uploader?.openDescriptors ?? 0, tracing: uploader?.tracing ?? false,
            stats: uploader?.stats ?? DeliveryStats(), storageError: destination?.storageError,
            rejectedWithoutIdentity: identity?.rejectedWithoutIdentity ?? 0, queueLimit: destination?.queueLimit)
        #if Privacy
        parts.consent = pillars.consent?(timeline).state ?? .granted
        parts.consentDroppedEvents = pillars.consent?(timeline).droppedEvents ?? 0
        #endif
        #if TrackingPlan
        parts.planViolations = timeline.find(TrackingPlanPlugin.self)?.violationCount ?? 0
        parts.planBlockedEvents = timeline.find(TrackingPlanPlugin.self)?.blockedCount ?? 0
        #endif
        #if Rules
        parts.remoteRules = (pillars.remoteRules?(timeline)).flatMap { plugin in
            plugin.ruleSet.map { RemoteRulesInForce(name: $0.name, version: $0.version, source: plugin.source) }
        }
        #endif
        #if Entitlements
        parts.entitlementsRefreshFailedAt = pillars.entitlements?(timeline).lastFailure
        #endif
        return parts
    }

    /// The debug fields: what was read on the executor, and the instance's own. Not inlined into
    /// the async function's parts, each of which would then carry a copy.
    @inline(never)
    private func debugInfo(from snapshot: DebugInfoParts) -> DebugInfo {
        let lifecycle = client.lifecycle
        var info = DebugInfo(
            lifecycle: lifecycle, queueLength: snapshot.delivery?.queueLength ?? 0,
            writeKey: DebugInfo.mask(options.writeKey), ingestionHost: options.ingestionHost,
            flushIntervalSeconds: options.flushIntervalSeconds, maxQueueEvents: snapshot.queueLimit?.maxEvents ?? 0,
            queueOnDisk: snapshot.queueLimit?.storage == .disk,
            circuitState: snapshot.delivery?.circuitState ?? .closed,
            circuitRemainingMs: snapshot.delivery?.circuitRemainingMs ?? 0,
            flushInFlight: snapshot.delivery?.flushInFlight ?? false,
            anonymousId: snapshot.anonymousId.flatMap { $0.isEmpty ? nil : $0 }, userId: snapshot.userId,
            groupId: snapshot.groupId, advertisingId: snapshot.advertisingId, tracing: snapshot.tracing,
            error: configurationError ?? client.disabledReason ?? snapshot.storageError, stats: snapshot.stats)
        for (reason, count) in [
            (DropReason.overflow, client.overflowedEvents), (.noIdentity, snapshot.rejectedWithoutIdentity),
            (.consent, snapshot.consentDroppedEvents), (.trackingPlan, snapshot.planBlockedEvents),
        ] where count > 0 {
            info.stats.dropped[reason, default: 0] += count
        }
        info.openDescriptors = snapshot.openDescriptors
        info.invalidInput = Dictionary(uniqueKeysWithValues: client.inputProblems.countsByCode.map { ($0.key.rawValue, $0.value) })
        #if Privacy
        info.consent = snapshot.consent
        #endif
        #if TrackingPlan
        info.planViolations = snapshot.planViolations
        #endif
        #if Rules
        info.remoteRulesInForce = snapshot.remoteRules.map { ($0.name, $0.version, $0.source) }
        #endif
        #if Entitlements
        info.entitlementsRefreshFailedAt = snapshot.entitlementsRefreshFailedAt
        #endif
        return info
    }

    /// What a `fork()` child's inherited instance reports: its options, nothing read from its
    /// state (whose locks a thread that is gone may hold).
    static func inertInForkedChild(_ options: InitOptions) -> DebugInfo {
        DebugInfo(
            lifecycle: nil, queueLength: 0, writeKey: DebugInfo.mask(options.writeKey), ingestionHost: options.ingestionHost,
            flushIntervalSeconds: options.flushIntervalSeconds, maxQueueEvents: 0, queueOnDisk: false, circuitState: .closed,
            circuitRemainingMs: 0, flushInFlight: false, tracing: false,
            error: "inert: this process is a fork() child of the one that created the instance", stats: DeliveryStats())
    }

    private struct DebugInfoParts: Sendable {
        var anonymousId: String?
        var userId: String?
        var groupId: String?
        var advertisingId: String?
        var delivery: BatchUploader.Status?
        var openDescriptors = 0
        var tracing: Bool
        var stats: DeliveryStats
        var storageError: String?
        var rejectedWithoutIdentity: Int
        var queueLimit: QueueLimit?
        var consentDroppedEvents = 0
        var planBlockedEvents = 0
        #if Privacy
        var consent = ConsentState.granted
        #endif
        #if TrackingPlan
        var planViolations = 0
        #endif
        #if Rules
        var remoteRules: RemoteRulesInForce?
        #endif
        #if Entitlements
        var entitlementsRefreshFailedAt: Date?
        #endif
    }

    #if Rules
    private struct RemoteRulesInForce: Sendable {
        var name: String
        var version: Int
        var source: RemoteRulesSource
    }
    #endif

    /// Runs `call` (an identify, alias or reset) as an identity change: with entitlements on,
    /// the entitlements served go blank until the new user's are known.
    func changingUser(_ call: () -> Void) {
        guard !client.isInForkedChild else { return client.noteForkedChild() }
        #if Entitlements
        if let cache = entitlementCache { return changingEntitledUser(cache, call) }
        #endif
        call()
    }

    /// Runs `read` on the executor after everything submitted before, and returns its result.
    /// A shut-down client still answers: its executor keeps draining. `nil` in a `fork()`
    /// child, where the executor does not run.
    func onExecutor<Value: Sendable>(_ read: @escaping @Sendable (Timeline) -> Value) async -> Value? {
        guard !client.isInForkedChild else {
            client.noteForkedChild()
            return nil
        }
        return await withCheckedContinuation { continuation in
            client.perform { continuation.resume(returning: read($0)) }
        }
    }
}
