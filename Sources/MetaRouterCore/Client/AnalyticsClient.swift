import Dispatch
import Foundation

/// The engine of one analytics instance: an ordered ingress, a serial executor, and the
/// timeline of plugins it runs every event through. Apps reach it through `Analytics`; a plugin
/// receives it in ``Plugin/configure(analytics:)`` and may read its write key, log to its
/// logger and send events of its own with ``process(_:)``.
///
/// Every method may be called from any thread and returns at once; the work happens on the
/// executor, in call order.
public final class AnalyticsClient: Sendable {
    struct Status {
        var lifecycle: ClientLifecycle = .initializing
        var disabledReason: String?
        var droppedCalls = 0
        /// Set on the executor as the shutdown's work begins: calls that reach the executor
        /// after it are dropped (``performCall(_:_:)``), whenever they were made.
        var closedToCalls = false
        var pendingResets = 0
        /// The client this one's kept calls went to (``handOver(to:first:)``), which answers for
        /// the calls forwarded to it.
        var successor: AnalyticsClient?
        var plugins: [PluginHandoff] = []
    }

    /// The configuration the built-ins read.
    package let configuration: Configuration
    /// The source's write key.
    public var writeKey: String { configuration.writeKey }
    /// Where this client logs; plugins log here too.
    public var logger: AnalyticsLogger { configuration.logger }
    /// Builds events for this client (its clock and problem reporter).
    package let events: EventFactory
    /// Where this client's input problems are logged, counted and handed to
    /// ``Configuration/onInvalidInput``; plugins that reject input report here too.
    package let inputProblems: InputProblemReporter
    /// The event its destinations encoded last (on the executor), shared so they encode it once.
    package let lastEncodedEvent = LastEncodedEvent()
    let executor: PipelineExecutor
    let status = Locked(Status())
    /// Whether the instance's destinations may still hand requests to their transports: shut
    /// from the shutdown's own thread when its deadline passes, for every destination the
    /// executor runs — one it is still behind on, or has yet to build. Taken around each
    /// hand-over, so nothing leaves once it is shut.
    package let sendingOpen = Locked(true)

    /// Creates a client with `plugins` in its timeline. It starts configuring them at once, on
    /// the executor, in the order given; calls made meanwhile wait, in order, and none are
    /// dropped.
    ///
    /// - Parameters:
    ///   - configuration: The write key, logger, clock and storage.
    ///   - plugins: The pipeline, added in order before any call runs.
    package convenience init(configuration: Configuration, plugins: [any Plugin] = []) {
        let handoffs = plugins.map(PluginHandoff.init)
        self.init(configuration: configuration, known: handoffs) { _ in handoffs.map(\.plugin) }
    }

    /// Creates a client whose plugins `makePlugins` builds on the executor, as its first
    /// operation, so that the thread creating the client does not pay for building them; calls
    /// made meanwhile wait behind it, in order. `makePlugins` must not wait for this client.
    ///
    /// - Parameters:
    ///   - configuration: The write key, logger, clock and storage.
    ///   - makePlugins: Builds the pipeline, added in order before any call runs, given the
    ///     client (which it may disable when what it needs turns out to be missing).
    package convenience init(configuration: Configuration, makePlugins: @escaping @Sendable (AnalyticsClient) -> [any Plugin]) {
        self.init(configuration: configuration, known: nil, makePlugins: makePlugins)
    }

    /// Creates a client that keeps every call, in order, and runs none: no plugins, its executor
    /// held (at most `configuration.maxPendingEvents` events, the rest dropped at the call and
    /// counted) until ``handOver(to:first:)`` moves what it kept into another client, to which
    /// it then sends every later call. `shared` keeps the calls made before `initialize(with:)`
    /// in one. The input problems its calls have are kept too, for the successor's reporter
    /// (``InputProblemReporter/handOver(to:)``).
    ///
    /// - Parameter configuration: The logger and clock of the calls kept.
    package init(keeping configuration: Configuration) {
        ForkGuard.install()
        self.configuration = configuration
        inputProblems = InputProblemReporter(keeping: configuration.logger)
        events = EventFactory(clock: configuration.clock, problems: inputProblems)
        executor = PipelineExecutor(label: "io.metarouter.executor.kept", held: true, maxPendingEvents: configuration.maxPendingEvents)
    }

    /// `known`: the plugins `makePlugins` returns, when they exist already (listed at once for
    /// ``find(pluginType:)``); `nil` lists them when they are built.
    private let companionBox = Locked<(any AnyObject & Sendable)?>(nil)

    private init(configuration: Configuration, known: [PluginHandoff]?, makePlugins: @escaping @Sendable (AnalyticsClient) -> [any Plugin]) {
        ForkGuard.install()
        self.configuration = configuration
        inputProblems = InputProblemReporter(logger: configuration.logger, callback: configuration.onInvalidInput)
        events = EventFactory(clock: configuration.clock, problems: inputProblems)
        executor = PipelineExecutor(
            label: "io.metarouter.executor.\(StorageFiles.namespace(for: configuration.writeKey))",
            held: configuration.startGate != nil, maxPendingEvents: configuration.maxPendingEvents)
        if let known { status.withLock { $0.plugins = known } }
        executor.submit(.operation { [self] timeline in
            let plugins = makePlugins(self)
            if known == nil {
                // Ahead of any plugin `add(plugin:)` listed meanwhile, as in the timeline.
                status.withLock { $0.plugins.insert(contentsOf: plugins.map(PluginHandoff.init), at: 0) }
            }
            // Attached first, so each plugin joins (is configured) in the order given.
            timeline.attach(to: self)
            for plugin in plugins { timeline.add(plugin) }
            status.withLock { if $0.lifecycle == .initializing { $0.lifecycle = .ready } }
        })
        if let gate = configuration.startGate {
            let waiting = Locked(true)
            gate.whenOpen { [executor] in
                waiting.withLock { $0 = false }
                executor.release()
            }
            if waiting.current { configuration.logger.info(gate.waitingMessage) }
        }
    }

    /// What the facade keeps beside this engine (its handles on the built-in plugins), set once
    /// when the instance is made; work on the executor finds it through its timeline, so it
    /// reaches this engine's plugins whatever the facade's calls go to by then.
    package var companion: (any AnyObject & Sendable)? {
        get { companionBox.current }
        set { companionBox.withLock { $0 = newValue } }
    }

    /// Where the client is in its life.
    package var lifecycle: ClientLifecycle { status.withLock { $0.lifecycle } }

    /// Why the client was disabled, when it was.
    package var disabledReason: String? { status.withLock { $0.disabledReason } }

    /// Calls dropped because the client was disabled or shut down.
    package var droppedCalls: Int { status.withLock { $0.droppedCalls } }

    // MARK: Ordered path

    /// Hands a fully built event to the ingress. Most callers use `track` and friends.
    ///
    /// - Parameter event: The event; its `messageId` and `timestamp` are kept.
    public func process(_ event: Event) {
        process(PreparedEvent(events.checked(event)))
    }

    /// Hands an event built by ``events`` to the ingress.
    package func process(_ prepared: PreparedEvent) {
        admit(.event(prepared), type: prepared.event.type)
    }

    /// Submits an event's command and reports what refused it; `compacting` and `hint` only for a
    /// track call with values (``PipelineExecutor/submit(_:compacting:hint:)``).
    func admit(_ command: Command, compacting: Bool = false, hint: Bool? = nil, type: EventType) {
        let admission = executor.submit(command, compacting: compacting, hint: hint)
        guard case .behind = admission else { return answer(admission, type: type) }
        // The ingress is behind: the call waits packed (or, when its values cannot be packed, as
        // it is).
        guard case .track(let call) = command, let values = call.values,
            let packed = executor.submitPacked(name: call.name, timestamp: call.timestamp, values: values, problems: call.problems, hint: nil)
        else { return admit(command, type: type) }
        answer(packed, type: type)
    }

    /// Events dropped at the call because the ingress held `Configuration.maxPendingEvents`:
    /// the callers were outrunning the pipeline.
    package var overflowedEvents: Int { executor.overflowedEvents }

    /// Track calls that waited with their values packed because the ingress was behind
    /// (``PackedValues``).
    package var packedCalls: Int { executor.packedCalls }

    /// Runs `work` on the executor, in order with the events submitted before it. Plugins use
    /// it to come back to the executor from timers and network callbacks.
    ///
    /// - Parameter work: Gets the timeline, which must not leave the closure.
    package func perform(_ work: @escaping @Sendable (Timeline) -> Void) {
        if case .forked = executor.submit(.operation(work)) { noteForkedChild() }
    }

    /// Runs `work` on the executor ahead of the events still waiting in the ingress (after a
    /// few dozen of them at most), for plugin work whose order with the calls does not matter:
    /// a network answer, a timer. Delivery uses it so that under a flood of calls its upload
    /// answers are not queued behind thousands of events. Work that must see exactly the
    /// events submitted before it (identity changes, `flush`, `reset`) uses ``perform(_:)``.
    package func performPromptly(_ work: @escaping @Sendable (Timeline) -> Void) {
        executor.submitPromptly(work)
    }

    /// Returns once everything submitted before this call has run through the timeline.
    package func settle() async {
        guard !ForkGuard.isChild else { return noteForkedChild() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            executor.submit(.operation { _ in continuation.resume() })
        }
    }

    // MARK: Control

    /// Asks every plugin to deliver what it holds; covers every event submitted before.
    package func flush() {
        reportUnreportedOverflow()
        perform { $0.apply { $0.flush() } }
    }

    /// Flushes and returns once every destination's attempt has resolved.
    package func flushAndWait() async {
        reportUnreportedOverflow()
        _ = await completeOnPlugins { plugin, done in
            if let completing = plugin as? any CompletingPlugin { completing.flush(completion: done) } else { plugin.flush(); done() }
        }
    }

    /// Resets every plugin (identity regenerated, queues cleared). Events submitted before keep
    /// the old identity; events after carry the new one.
    package func reset() {
        guard !ForkGuard.isChild else { return noteForkedChild() }
        status.withLock {
            $0.pendingResets += 1
            if $0.lifecycle == .ready { $0.lifecycle = .resetting }
        }
        perform { [self] timeline in
            if !dropsCall("reset call", on: timeline) { timeline.apply { $0.reset() } }
            status.withLock {
                $0.pendingResets -= 1
                if $0.pendingResets == 0, $0.lifecycle == .resetting { $0.lifecycle = .ready }
            }
        }
    }

    /// Resets and returns once the reset has been applied.
    package func resetAndWait() async {
        reset()
        await settle()
    }

    /// Stops the client: later calls are dropped; every plugin shuts down (delivering or
    /// persisting what it holds). Returns when all have finished, or after `timeout` seconds
    /// (a plugin that never calls back is reported, not waited for). Returns `true` when every
    /// plugin finished in time and every accepted event was delivered or written to disk;
    /// `false` when one timed out, or events are left only in memory (the disk log could not
    /// be written, or it is off and the host did not take them).
    ///
    /// - Parameter timeout: Seconds to wait for the plugins.
    /// - Returns: Whether every plugin finished in time and every accepted event was delivered or written to disk.
    @discardableResult
    package func shutdown(timeout: TimeInterval = Defaults.shutdownTimeoutSeconds) async -> Bool {
        guard !ForkGuard.isChild else {
            noteForkedChild()
            return false
        }
        status.withLock { if $0.lifecycle != .disabled { $0.lifecycle = .shutDown } }
        executor.refuseEvents()
        reportUnreportedOverflow()
        // Ahead of the plugins' shutdown on the executor: what the log, the identity store and
        // the other files hold is the next instance's once this one has finished.
        perform { [self] _ in status.withLock { $0.closedToCalls = true } }
        let undurable = Locked(0)
        let finished = await completeOnPlugins(deadline: timeout) { plugin, done in
            if let holder = plugin as? any DurabilityReporting {
                holder.shutdown { count in
                    undurable.withLock { $0 += count }
                    done()
                }
            } else if let completing = plugin as? any CompletingPlugin {
                completing.shutdown(completion: done)
            } else {
                plugin.shutdown()
                done()
            }
        }
        var lost = undurable.current
        if !finished {
            logger.warning("sdk.shutdown_timeout: a plugin did not finish within \(timeout) s; not waiting for it")
            // Now, whatever the executor is doing: it closes the holders when it gets to them.
            sendingOpen.withLock { $0 = false }
            lost = await closeHoldersNow()
        }
        if lost > 0 {
            logger.error("sdk.shutdown_undurable: \(lost) accepted event(s) were neither delivered nor written to disk")
        }
        return finished && lost == 0
    }

    /// After a shutdown's deadline: the plugins that hold events stop at once, so their disk
    /// logs are free for the next instance as `shutdown` returns (what is on disk is delivered
    /// by whoever opens it next, an interrupted batch under its key). The events neither
    /// delivered nor stored; bounded by a second of the executor's time.
    private func closeHoldersNow() async -> Int {
        let undurable = Locked(0)
        _ = await completeOnPlugins(deadline: 1) { plugin, done in
            if let holder = plugin as? any DurabilityReporting {
                let count = holder.closeNow()
                undurable.withLock { $0 += count }
            }
            done()
        }
        return undurable.current
    }

    /// Disables the client for good: later calls are dropped with a log line and
    /// `getDebugInfo` reports `reason`. Delivery calls this on 401 / 403 / 404.
    package func disable(reason: String) {
        let first = status.withLock { status -> Bool in
            guard status.lifecycle != .disabled else { return false }
            status.lifecycle = .disabled
            status.disabledReason = reason
            return true
        }
        executor.refuseEvents()
        if first { logger.error("sdk.disabled: client disabled: \(reason)") }
    }

    /// Where plugin completions and shutdown deadlines are noticed: a queue of the SDK's own,
    /// so a host that keeps the global queues busy cannot hold a deadline back.
    private static let waitQueue = DispatchQueue(label: "metarouter.plugin-completion", qos: .utility)

    /// Runs `body` on every plugin and waits until each has called back once — a second call
    /// is ignored — or until `deadline` seconds pass. Returns whether all called back in time.
    private func completeOnPlugins(
        deadline: TimeInterval? = nil, _ body: @escaping (any Plugin, @escaping @Sendable () -> Void) -> Void
    ) async -> Bool {
        guard !ForkGuard.isChild else {
            noteForkedChild()
            return false
        }
        let work = OperationHandoff(body)
        let resumed = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let finish: @Sendable (Bool) -> Void = { inTime in
                if resumed.firstTime() { continuation.resume(returning: inTime) }
            }
            executor.submit(.operation { timeline in
                let group = DispatchGroup()
                timeline.apply { plugin in
                    group.enter()
                    let called = Locked(false)
                    work.body(plugin) { if called.firstTime() { group.leave() } }
                }
                group.notify(queue: Self.waitQueue) { finish(true) }
            })
            if let deadline {
                Self.waitQueue.asyncAfter(deadline: .now() + max(0, deadline)) { finish(false) }
            }
        }
    }

    /// Stops a debug build when called off this client's executor. Executor-only APIs (timeline
    /// changes, a rule-set swap, delivery switches) call it; release builds skip the check.
    package func assertOnExecutor() {
        executor.assertOnQueue()
    }

    /// Whether the caller is running on this client's executor (where waiting for the executor
    /// would wait forever).
    package var isOnExecutor: Bool { executor.isCurrent }

    /// Whether this client runs in a `fork()` child of the process that created it, where it
    /// is inert: calls are dropped and waiting calls return at once.
    package var isInForkedChild: Bool { ForkGuard.isChild }

    /// Logs, once per process, that the instances a `fork()` child inherited do nothing here
    /// (taking none of the parent's locks: ``ForkGuard``).
    package func noteForkedChild() {
        ForkGuard.noteChild(logger)
    }

    /// Counts a call the executor refused because the client is shut down or disabled; logs
    /// the first such drop loudly and the rest at debug level.
    package func noteDroppedCall(_ what: @autoclosure () -> String) {
        let (first, reason, successor) = status.withLock { status -> (Bool, String, AnalyticsClient?) in
            // A call kept for `shared` and refused by the instance it went to: that instance
            // counts it, and logs it to the app's sink.
            if let successor = status.successor { return (false, "", successor) }
            status.droppedCalls += 1
            let reason = status.lifecycle == .disabled ? "disabled: \(status.disabledReason ?? "")" : "shut down"
            return (status.droppedCalls == 1, reason, nil)
        }
        if let successor { return successor.noteDroppedCall(what()) }
        logger.log(first ? .warning : .debug, "sdk.call_dropped: dropped \(what()): client is \(reason)")
    }
}

/// Carries a plugin to the executor. Plugins are not `Sendable`; ownership passes to the
/// executor, which alone invokes them from then on.
package struct PluginHandoff: @unchecked Sendable {  // the plugin is only invoked on the executor after handoff
    package let plugin: any Plugin
    package init(_ plugin: any Plugin) { self.plugin = plugin }
}

/// Carries a non-`Sendable` closure to the executor, where alone it runs.
private struct OperationHandoff: @unchecked Sendable {  // `body` runs only on the executor
    let body: (any Plugin, @escaping @Sendable () -> Void) -> Void
    init(_ body: @escaping (any Plugin, @escaping @Sendable () -> Void) -> Void) { self.body = body }
}
