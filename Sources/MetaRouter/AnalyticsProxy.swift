import Foundation

/// The object behind `MetaRouter.Analytics.shared`: usable before `initialize(with:)`.
/// Until a client is bound, calls are built into events at once (timestamp and messageId
/// taken at the call) and kept in order, ``maxKeptCalls`` of them at most: a call beyond that
/// is dropped at the call, counted (`getDebugInfo().stats.dropped[.overflow]`, before and after
/// binding) and logged (one line per 10 s, with the count so far, and the rest at binding), as
/// the ingress does when it is full. Binding replays them into the client ahead of any later
/// call, after giving its delivery queue room for the kept events, so that none is evicted by
/// the replay itself.
package final class AnalyticsProxy: AnalyticsBackend {
    private struct State {
        var target: MetaRouterClient?
        /// The client being bound while kept calls are replayed into it.
        var binding: MetaRouterClient?
        var pending: [@Sendable (MetaRouterClient) -> Void] = []
        /// How many of `pending` are events.
        var pendingEvents = 0
        var waiting: [CheckedContinuation<MetaRouterClient, Never>] = []
        /// Calls dropped because ``maxKeptCalls`` were kept already.
        var dropped = 0
        var dropReports = ReportThrottle(interval: 10)
    }

    /// Calls kept before `initialize(with:)` at most (the ingress's own bound).
    package static let maxKeptCalls = Defaults.maxPendingEvents

    private let state = Locked(State())
    private let logger = AnalyticsLogger()
    private let problems: InputProblemReporter
    private let factory: EventFactory

    package init() {
        problems = InputProblemReporter(logger: logger)
        factory = EventFactory(clock: SystemClock(), problems: problems)
    }

    /// Holds this proxy's lock across `fork()` (``ForkGuard``): `shared`'s callers take it on
    /// every call, so a child must not inherit it held.
    func holdLockAcrossFork() {
        ForkGuard.holdAcrossFork(HeldAcrossFork(state))
    }

    /// The bound client, if any.
    package var target: MetaRouterClient? { state.withLock { $0.target } }

    /// Binds `client` unless one is bound already; replays what was kept. Returns whether it
    /// bound.
    ///
    /// The kept calls are replayed outside the lock, a batch at a time; calls made meanwhile
    /// are kept behind them, and the client becomes the target only once nothing is left, so
    /// the order holds without running client code under the proxy's lock.
    @discardableResult
    package func bind(_ client: MetaRouterClient) -> Bool {
        enum Claim { case refused, bound, replaying }
        // With nothing kept and nobody waiting (an app that initializes before its first call)
        // the client is bound here, in one lock, without touching the kept calls' types: the
        // first use of a type in a process costs the runtime a lookup, on the thread that
        // called `initialize(with:)`.
        let claim = state.withLock { state -> Claim in
            guard state.target == nil, state.binding == nil else { return .refused }
            guard state.pending.isEmpty, state.waiting.isEmpty else {
                state.binding = client
                return .replaying
            }
            state.target = client
            return .bound
        }
        if case .replaying = claim { replayKept(into: client) }
        return claim != .refused
    }

    /// Replays the kept calls into `client`, which is being bound, then makes it the target
    /// and resumes the callers waiting for it.
    private func replayKept(into client: MetaRouterClient) {
        var waiting: [CheckedContinuation<MetaRouterClient, Never>] = []
        while true {
            let (batch, events, unreported) = state.withLock { state -> ([@Sendable (MetaRouterClient) -> Void], Int, Int?) in
                guard state.pending.isEmpty else {
                    defer {
                        state.pending = []
                        state.pendingEvents = 0
                    }
                    return (state.pending, state.pendingEvents, nil)
                }
                state.target = client
                state.binding = nil
                waiting = state.waiting
                state.waiting = []
                return ([], 0, state.dropReports.takeUnreported())
            }
            if let unreported { reportDropped(unreported, to: client.client.logger) }
            if batch.isEmpty { break }
            client.makeRoomForReplay(events)
            for call in batch { call(client) }
        }
        for continuation in waiting { continuation.resume(returning: client) }
    }

    private func reportDropped(_ count: Int, to logger: AnalyticsLogger) {
        let total = droppedBeforeInitialize
        logger.warning(
            "sdk.ingress_full: dropped \(count) call(s) to shared before initialize(with:) since the last report (\(total) in all): "
                + "\(Self.maxKeptCalls) were kept already, to be replayed once an instance is initialized")
    }

    /// Unbinds the current client; later calls are kept until the next bind.
    func unbind() {
        state.withLock { $0.target = nil }
    }

    private func forward(isEvent: Bool = false, _ call: @escaping @Sendable (MetaRouterClient) -> Void) {
        let (target, report) = state.withLock { state -> (MetaRouterClient?, Int?) in
            guard state.target == nil else { return (state.target, nil) }
            guard state.pending.count < Self.maxKeptCalls else {
                state.dropped += 1
                return (nil, state.dropReports.add(1, at: Double(DispatchTime.now().uptimeNanoseconds) / 1e9))
            }
            state.pending.append(call)
            if isEvent { state.pendingEvents += 1 }
            return (nil, nil)
        }
        if let target { return call(target) }
        if let report { reportDropped(report, to: logger) }
    }

    /// Callers waiting for a client to be bound (`getAnonymousId()` and the like).
    package var waitingCallers: Int { state.withLock { $0.waiting.count } }

    /// Calls dropped because ``maxKeptCalls`` were kept before `initialize(with:)`.
    package var droppedBeforeInitialize: Int { state.withLock { $0.dropped } }

    private func forward(_ event: PreparedEvent) {
        forward(isEvent: true) { $0.client.process(event) }
    }

    /// An identify or alias kept for the client: replayed as an identity change.
    private func forwardUserChange(_ event: PreparedEvent) {
        forward(isEvent: true) { client in client.changingUser { client.client.process(event) } }
    }

    private func boundClient() async -> MetaRouterClient {
        if let target { return target }
        return await withCheckedContinuation { continuation in
            let target = state.withLock { state -> MetaRouterClient? in
                if state.target == nil { state.waiting.append(continuation) }
                return state.target
            }
            if let target { continuation.resume(returning: target) }
        }
    }

    /// Records a user action.
    package func track(_ event: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        if let target { return target.track(event, properties: properties, options: options) }
        forward(factory.track(event, properties: properties, options: options))
    }

    /// Sets the current user and records their traits.
    package func identify(_ userId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        if let target { return target.identify(userId, traits: traits, options: options) }
        forwardUserChange(factory.identify(userId, traits: traits, options: options))
    }

    /// Sets the current group and records its traits.
    package func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        if let target { return target.group(groupId, traits: traits, options: options) }
        forward(factory.group(groupId, traits: traits, options: options))
    }

    /// Sets the current group with typed traits.
    package func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions?) {
        if let target { return target.group(groupId, traits: traits, options: options) }
        forward(PreparedEvent(factory.group(groupId, encodable: traits, options: options)))
    }

    /// Records a screen view.
    package func screen(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        if let target { return target.screen(name, properties: properties, options: options) }
        forward(factory.view(.screen, name, properties: properties, options: options))
    }

    /// Records a page view.
    package func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        if let target { return target.page(name, properties: properties, options: options) }
        forward(factory.view(.page, name, properties: properties, options: options))
    }

    /// Links the current identity to `newUserId`.
    package func alias(_ newUserId: String, options: EventOptions? = nil) {
        if let target { return target.alias(newUserId, options: options) }
        forwardUserChange(PreparedEvent(factory.alias(newUserId, options: options)))
    }

    /// Records a user action with typed properties.
    package func track<Properties: Encodable>(_ event: String, properties: Properties, options: EventOptions? = nil) {
        if let target { return target.track(event, properties: properties, options: options) }
        forward(PreparedEvent(factory.track(event, encodable: properties, options: options)))
    }

    /// Sets the current user with typed traits.
    package func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions? = nil) {
        if let target { return target.identify(userId, traits: traits, options: options) }
        forwardUserChange(PreparedEvent(factory.identify(userId, encodable: traits, options: options)))
    }

    /// Sets or clears the advertising id once a client is bound.
    package func setAdvertisingId(_ advertisingId: String?) { forward { $0.setAdvertisingId(advertisingId) } }
    /// Clears the advertising id once a client is bound.
    package func clearAdvertisingId() { forward { $0.clearAdvertisingId() } }
    /// Starts a session once a client is bound, in call order.
    package func startSession() { forward { $0.startSession() } }
    /// Ends the session once a client is bound, in call order.
    package func endSession() { forward { $0.endSession() } }
    /// Waits for a client to be bound and wipes its local state.
    package func forget() async -> ForgetReport { await boundClient().forget() }
    /// Waits for a client to be bound and returns its anonymous id.
    package func getAnonymousId() async -> String { await boundClient().getAnonymousId() }
    /// Flushes once a client is bound.
    package func flush() { forward { $0.flush() } }
    /// Waits for a client to be bound, then flushes and waits.
    package func flushAndWait() async { await boundClient().flushAndWait() }
    /// Resets once a client is bound.
    package func reset() { forward { $0.reset() } }
    /// Turns on debug logging once a client is bound.
    package func enableDebugLogging() { forward { $0.enableDebugLogging() } }
    /// Sets the log level once a client is bound.
    package func setLogLevel(_ level: LogLevel) { forward { $0.setLogLevel(level) } }
    /// Runs `body` with the bound client's engine once one is bound, in call order.
    package func withEngine(_ body: @escaping @Sendable (AnalyticsClient) -> Void) { forward { body($0.client) } }
    /// Sets tracing once a client is bound.
    package func setTracing(_ enabled: Bool) { forward { $0.setTracing(enabled) } }
    /// Forwards the URL once a client is bound.
    package func recordOpenedURL(_ url: URL, sourceApplication: String?) {
        forward { $0.recordOpenedURL(url, sourceApplication: sourceApplication) }
    }
    /// Shuts the bound client down; does nothing when none is bound.
    package func shutdown() async { await target?.shutdown() }
    /// Shuts the bound client down within `timeout`; `true` when none is bound.
    package func shutdown(timeout: TimeInterval) async -> Bool { await target?.shutdown(timeout: timeout) ?? true }
    /// Resets the bound client and waits; with none bound, keeps the reset in call order.
    package func resetAndWait() async {
        if let target { await target.resetAndWait() } else { reset() }
    }
    /// The bound client, once a client is bound.
    package func boundInstance() async -> MetaRouterClient { await boundClient() }

    /// The bound client's state, or `lifecycle: idle` when none is bound yet.
    /// The calls dropped before binding are counted in `stats.dropped[.overflow]`, before and
    /// after it.
    package func getDebugInfo() async -> DebugInfo {
        let dropped = droppedBeforeInitialize
        var info: DebugInfo
        if let target {
            info = await target.getDebugInfo()
        } else {
            let queued = state.withLock { $0.pending.count }
            info = DebugInfo(
                lifecycle: nil, queueLength: queued, writeKey: "", ingestionHost: "", flushIntervalSeconds: 0,
                maxQueueEvents: 0, queueOnDisk: false, circuitState: .closed,
                circuitRemainingMs: 0, flushInFlight: false, tracing: false, error: nil, stats: DeliveryStats())
        }
        if dropped > 0 { info.stats.dropped[.overflow, default: 0] += dropped }
        return info
    }

    #if Privacy
    /// Turns PII scrubbing on or off once a client is bound, in call order.
    package func setScrubPII(_ enabled: Bool) { forward { $0.setScrubPII(enabled) } }
    /// Registers a super property once a client is bound, in call order.
    package func registerSuperProperty(_ key: String, _ value: Any) {
        guard let json = problems.converted([key: value], root: "superProperties", call: "registerSuperProperty")[key] else { return }
        forward { $0.registerSuperProperty(key, json) }
    }
    /// Registers a super property unless one is, once a client is bound, in call order.
    package func registerSuperPropertyOnce(_ key: String, _ value: Any) {
        guard let json = problems.converted([key: value], root: "superProperties", call: "registerSuperPropertyOnce")[key] else { return }
        forward { $0.registerSuperPropertyOnce(key, json) }
    }
    /// Unregisters a super property once a client is bound, in call order.
    package func unregisterSuperProperty(_ key: String) { forward { $0.unregisterSuperProperty(key) } }
    /// Sets the consent once a client is bound, in call order.
    package func setConsent(_ consent: ConsentState) { forward { $0.setConsent(consent) } }
    #endif
    #if TrackingPlan
    /// Replaces the tracking plan once a client is bound, in call order.
    package func setTrackingPlan(_ plan: TrackingPlan?) { forward { $0.setTrackingPlan(plan) } }
    #endif
    #if ErrorCapture
    /// Reports a caught error once a client is bound; the stack is taken now, at the call.
    package func captureError(_ error: any Error, handled: Bool = true, properties: [String: Any]? = nil) {
        let captured = CapturedError(error)
        let frames = StackFrames.current()
        let converted = problems.converted(properties ?? [:], root: "properties", call: "captureError")
        forward { $0.capture(captured, handled: handled, properties: converted, frames: frames) }
    }
    /// Adds a breadcrumb once a client is bound, in call order.
    package func addBreadcrumb(_ breadcrumb: Breadcrumb) { forward { $0.addBreadcrumb(breadcrumb) } }
    #endif
    #if Signals
    /// Emits a signal once a client is bound, in call order.
    package func emit(_ signal: SignalContent) { forward { $0.emit(signal) } }
    /// Emits a user-defined signal once a client is bound; encoded now, at the call.
    package func emit<Data: Encodable>(userDefined value: Data) {
        if let signal = SignalContent.userDefined(encoding: value, problems: problems) { emit(signal) }
    }
    #endif
    #if Entitlements
    /// The bound client's answer; `false` while none is bound.
    package func isEntitled(_ key: String) -> Bool { target?.isEntitled(key) ?? false }
    /// The bound client's set; `nil` while none is bound.
    package func entitlements() -> Set<String>? { target?.entitlements() }
    /// Waits for a client to be bound and refreshes its entitlements.
    package func refreshEntitlements() async throws -> Set<String> { try await boundClient().refreshEntitlements() }
    /// Registers the handler once a client is bound, in call order.
    package func onEntitlementsChange(_ handler: @escaping @Sendable (EntitlementChange) -> Void) {
        forward { $0.onEntitlementsChange(handler) }
    }
    /// The bound client's changes; before one is bound, those from the moment it is.
    package var entitlementChanges: AsyncStream<EntitlementChange> {
        if let target { return target.entitlementChanges }
        var made: AsyncStream<EntitlementChange>.Continuation?
        let stream = AsyncStream<EntitlementChange> { made = $0 }
        guard let continuation = made else { return stream }
        forward { client in client.onEntitlementsChange { continuation.yield($0) } }
        return stream
    }
    /// The bound client's answer; before one is bound, refused (a purchase is never kept
    /// where a cap could not be checked).
    @discardableResult
    package func recordPurchase(transactionId: String, evidence: String) -> PurchaseRecording {
        guard let target else {
            return .refused(reason: "no instance is initialized yet: record the purchase after initialize(with:)")
        }
        return target.recordPurchase(transactionId: transactionId, evidence: evidence)
    }
    #endif
}
