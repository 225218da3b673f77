import Foundation

/// The name the seed README gives an instance's type (`var analytics: AnalyticsInterface?`).
public typealias AnalyticsInterface = Analytics

/// Making, finding and stopping instances: one per write key in a process.
extension Analytics {
    /// One instance per write key. Held across `fork()`, so a child, whose calls pass through
    /// it, never inherits it held (``ForkGuard``).
    private static let registry: Locked<InstanceTable> = {
        let registry = Locked(InstanceTable())
        ForkGuard.holdAcrossFork(HeldAcrossFork(registry))
        return registry
    }()
    private static let sharedSlot: SharedSlot = {
        let slot = SharedSlot()
        slot.holdLockAcrossFork()
        return slot
    }()
    private static let sharedInstance = Analytics(shared: sharedSlot)

    /// The first initialized instance, usable from anywhere — even before
    /// `initialize(with:)`: calls made earlier are kept in order (50,000 events at most; an
    /// event beyond that is dropped at the call and logged, `sdk.ingress_full`) and handed to
    /// the instance once one is bound. The `async` methods that read state wait for that
    /// instance.
    public static var shared: Analytics { sharedInstance }

    /// Returns the instance for `options.writeKey`, creating and starting it if needed, and
    /// binds ``shared`` to it unless it is bound already.
    ///
    /// It returns at once; calls made before the instance is ready wait, in order. A second
    /// call with the same write key returns the existing instance (its options are kept;
    /// other options are reported once, `sdk.instance_exists`). Invalid options (empty write
    /// key, a host that is not http(s), `maxQueueEvents <= 0`, negative `maxDiskEvents`,
    /// `flushIntervalSeconds <= 0`) are logged and give an inert instance that drops every
    /// call and reports the error in `getDebugInfo()`; ``shared`` is not bound to it, and keeps
    /// its calls (bounded, counted) for the next `initialize(with:)` with valid options.
    ///
    /// - Parameter options: The write key, the ingestion host and everything else.
    /// - Returns: The instance for the write key.
    @discardableResult
    public static func initialize(with options: InitOptions) -> Analytics {
        let analytics = instance(for: options)
        bindShared(to: analytics.parts)
        return analytics
    }

    /// Binds ``shared`` to `parts` unless it is bound to a live instance. An instance shutting
    /// down is not live: one that ``shared`` is still bound to gives way (its shutdown unbinds
    /// it a moment later anyway), and one that began shutting down while it was being bound
    /// (`shutdownAll` meanwhile) is unbound again.
    private static func bindShared(to parts: Parts) {
        if let bound = sharedSlot.bound, !isLive(bound) { sharedSlot.unbind(bound.engine) }
        if sharedSlot.bind(parts), !isLive(parts) { sharedSlot.unbind(parts.engine) }
    }

    /// Whether the registry holds `parts`' instance: made, and not shutting down.
    private static func isLive(_ parts: Parts) -> Bool {
        registry.withLock { $0[parts.options.writeKey]?.engine === parts.engine }
    }

    /// The instance for `options.writeKey`, created if needed, like ``initialize(with:)`` but
    /// without binding ``shared`` — for servers that run one instance per tenant.
    ///
    /// No caller code runs under the registry's lock: the plugin factory (`InitOptions.plugins`)
    /// runs on the new instance's executor, before any call reaches its pipeline, so a factory
    /// may itself ask for another instance (it must not wait for its own).
    ///
    /// - Parameter options: The write key, the ingestion host and everything else.
    /// - Returns: The instance for the write key.
    public static func instance(for options: InitOptions) -> Analytics {
        // A known key is a lock and a lookup (and a few comparisons): servers ask per request.
        if let existing = registry.withLock({ $0[options.writeKey] }) {
            noteRequest(with: options, to: existing.parts)
            return existing
        }
        let prepared = ClientFactory.prepare(options)
        let (analytics, created) = registry.withLock { instances -> (Analytics, Bool) in
            if let existing = instances[options.writeKey] { return (existing, false) }
            let made = Analytics(prepared.start(after: instances.predecessorGate(for: options.writeKey)))
            if made.configurationError == nil { instances[options.writeKey] = made }
            return (made, true)
        }
        if !created {
            noteRequest(with: options, to: analytics.parts)
        } else if analytics.configurationError == nil {
            analytics.engine.logger.debug("sdk.configured: instance for write key \(DebugInfo.mask(options.writeKey)) created")
        }
        return analytics
    }

    /// Takes an instance about to shut down out of the registry (and out of `shared`, which
    /// keeps later calls for the next `initialize(with:)`), so the next request for its write
    /// key makes a new instance — one that starts only once this one has finished
    /// (``finishClosing(_:)``): two engines never share an event log. Returns `false` when the
    /// registry does not hold it.
    static func beginClosing(_ parts: Parts) -> Bool {
        parts.shuttingDown.withLock { $0 = true }
        let listed = registry.withLock { $0.beginClosing(key: parts.options.writeKey, engine: parts.engine) }
        sharedSlot.unbind(parts.engine)
        return listed
    }

    /// Lets the instance waiting for `parts`' to finish shutting down start — once its executor
    /// has run everything the shutdown left it, the closing of its logs included: a shutdown
    /// that timed out returns while an executor a plugin holds up, or one still held (a
    /// successor shut down before its own predecessor finished), has yet to let go of them.
    /// Until then a new instance for its key still waits behind it.
    static func finishClosing(_ parts: Parts) {
        let engine = parts.engine
        engine.perform { _ in registry.withLock { $0.finishClosing(engine) }?.open() }
    }

    /// Initializes and waits until the instance is ready (plugins configured, identity
    /// loaded).
    ///
    /// - Parameter options: The write key, the ingestion host and everything else.
    /// - Returns: The instance, ready.
    public static func initializeAndWait(with options: InitOptions) async -> Analytics {
        let analytics = initialize(with: options)
        await analytics.engine.settle()
        return analytics
    }

    /// Resets the shared instance (identity, advertising id, queue) and waits until the
    /// reset has been applied. Does nothing when no instance is bound.
    public static func resetAndWait() async {
        guard sharedSlot.isBound else { return }
        await shared.resetAndWait()
    }

    /// Shuts down and forgets every instance, and unbinds ``shared``: the next
    /// `initialize(with:)` starts afresh. For tests and for servers that stop. The instances
    /// shut down side by side, each delivering what it can within `timeout` seconds (10 by
    /// default); what is left stays in their logs for the next start. A server gives it a few
    /// seconds less than its orchestrator's grace period (Kubernetes: 30 s).
    ///
    /// - Parameter timeout: Seconds each instance may take.
    /// - Returns: Whether every instance finished in time with every accepted event delivered
    ///   or on disk.
    @discardableResult
    public static func shutdownAll(timeout: TimeInterval = Defaults.shutdownTimeoutSeconds) async -> Bool {
        let instances = registry.withLock { $0.beginClosingAll() }
        var all = instances.map(\.parts)
        for parts in all { parts.shuttingDown.withLock { $0 = true } }
        if let bound = sharedSlot.bound, !all.contains(where: { $0.engine === bound.engine }) {
            // Bound by an `initialize` that registered it after the registry was emptied.
            bound.shuttingDown.withLock { $0 = true }
            _ = registry.withLock { $0.beginClosing(key: bound.options.writeKey, engine: bound.engine) }
            all.append(bound)
        }
        sharedSlot.unbind()
        return await withTaskGroup(of: Bool.self) { group in
            for parts in all {
                group.addTask {
                    let finished = await parts.engine.shutdown(timeout: timeout)
                    finishClosing(parts)
                    return finished
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
    }

    /// The shared instance.
    ///
    /// - Returns: ``shared``.
    @available(*, deprecated, renamed: "shared", message: "Use Analytics.shared")
    public static func client() -> Analytics { shared }
}
