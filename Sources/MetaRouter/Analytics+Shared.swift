import Foundation

/// The engine slot behind ``Analytics/shared``, bound once to an instance by
/// `initialize(with:)`.
///
/// Before binding, `shared`'s calls go, by the same code as an instance's, to an engine that
/// keeps them: its executor is held (``AnalyticsClient/init(keeping:)``), so calls are built
/// into events at once (timestamp taken at the call) and kept in order, and the input
/// problems they have are kept for the instance's log sink and `onInvalidInput`; events
/// up to `Defaults.maxPendingEvents`. An event beyond that is dropped at the call, counted
/// (`getDebugInfo().stats.dropped[.overflow]`, before and after binding) and logged (one line
/// per 10 s, with the count so far, and the rest at binding), as any full ingress does.
/// Binding hands what was kept to the instance's engine, after giving its delivery queue room
/// for the kept events so that none is evicted by the replay itself, under the slot's lock and
/// before the instance becomes visible: a call made meanwhile is kept behind them or forwarded
/// by the keeping engine, so each caller's order holds.
final class SharedSlot: Sendable {
    private struct State {
        /// The bound instance's parts, or the keeping engine's, or `nil` before any call.
        var current: Analytics.Parts?
        var isBound = false
        /// Events dropped by keeping engines already handed over.
        var droppedEarlier = 0
    }

    private let state = Locked(State())

    /// Holds this slot's lock across `fork()` (``ForkGuard``): `shared`'s callers take it on
    /// every call, so a child must not inherit it held.
    func holdLockAcrossFork() {
        ForkGuard.holdAcrossFork(HeldAcrossFork(state))
    }

    /// The parts calls go to now: the bound instance's, or the keeping engine's (made at the
    /// first call that needs it).
    var parts: Analytics.Parts {
        state.withLock { state in
            if let current = state.current { return current }
            let keeping = Self.keepingParts()
            state.current = keeping
            return keeping
        }
    }

    /// The bound instance's parts, if one is bound.
    var bound: Analytics.Parts? { state.withLock { $0.isBound ? $0.current : nil } }

    /// Whether an instance is bound.
    var isBound: Bool { state.withLock { $0.isBound } }

    /// Binds the instance `parts` belong to unless one is bound already, handing it the calls
    /// kept. Returns whether it bound. An inert instance (invalid options) is never bound, nor
    /// one whose shutdown has begun (checked under this slot's lock, which the shutdown's
    /// unbinding takes after setting it): the calls stay kept for the next instance.
    @discardableResult
    func bind(_ parts: Analytics.Parts) -> Bool {
        guard parts.configurationError == nil else { return false }
        // With nothing kept (an app that initializes before its first call) the instance is
        // bound in one lock, without making a keeping engine.
        let taken = state.withLock { state -> (bound: Bool, unreported: Int?, keeping: Analytics.Parts?) in
            guard !state.isBound, !parts.shuttingDown.current else { return (false, nil, nil) }
            var unreported: Int?
            let keeping = state.current
            if let keeping {
                keeping.engine.handOver(to: parts.engine) { events in
                    guard events > 0 else { return nil }
                    let slots = parts.pillarSlots
                    return { slots.found.destination?($0).uploader?.makeRoom(forMore: events) }
                }
                state.droppedEarlier += keeping.engine.overflowedEvents
                unreported = keeping.engine.takeUnreportedOverflow()
            }
            state.current = parts
            state.isBound = true
            return (true, unreported, keeping)
        }
        // Outside the lock: the instance's log sink and `onInvalidInput` are the app's code.
        taken.keeping?.engine.inputProblems.handOver(to: parts.engine.inputProblems)
        if let count = taken.unreported {
            parts.engine.logger.warning(
                "sdk.ingress_full: dropped \(count) call(s) to shared before initialize(with:) since the last report (\(droppedBeforeInitialize) in all): "
                    + "\(Defaults.maxPendingEvents) were kept already, to be replayed once an instance is initialized")
        }
        return taken.bound
    }

    /// Unbinds the instance whose engine is `engine` (any bound one when `nil`); later calls are
    /// kept until the next bind.
    func unbind(_ engine: AnalyticsClient? = nil) {
        state.withLock { state in
            guard state.isBound, engine == nil || state.current?.engine === engine else { return }
            state.current = nil
            state.isBound = false
        }
    }

    /// Events dropped because `Defaults.maxPendingEvents` were kept before binding, in all.
    var droppedBeforeInitialize: Int {
        state.withLock { state in
            state.droppedEarlier + (state.isBound ? 0 : state.current?.engine.overflowedEvents ?? 0)
        }
    }

    /// Calls other than events kept before binding (callers waiting for an answer among them).
    var keptOperations: Int {
        state.withLock { state in
            guard !state.isBound, let waiting = state.current?.engine.waitingCalls else { return 0 }
            return waiting.all - waiting.events
        }
    }

    /// What `getDebugInfo()` says before binding: `lifecycle: idle`, the events kept.
    func unboundDebugInfo() -> DebugInfo {
        let kept = state.withLock { $0.isBound ? 0 : $0.current?.engine.waitingCalls.events ?? 0 }
        return DebugInfo(
            lifecycle: nil, queueLength: kept, writeKey: "", ingestionHost: "", flushIntervalSeconds: 0,
            maxQueueEvents: 0, queueOnDisk: false, circuitState: .closed,
            circuitRemainingMs: 0, flushInFlight: false, tracing: false, error: nil, stats: DeliveryStats())
    }

    /// An engine that keeps calls, with the default logger and no options of its own.
    private static func keepingParts() -> Analytics.Parts {
        Analytics.Parts(
            engine: AnalyticsClient(keeping: Configuration(writeKey: "")),
            options: InitOptions(writeKey: "", ingestionHost: ""), configurationError: nil, pillarSlots: PillarSlots())
    }
}

extension Analytics {
    /// An object like ``shared`` with a slot of its own, for the tests of binding (so that
    /// `shared` is untouched).
    package static func unboundShared() -> Analytics { Analytics(shared: SharedSlot()) }

    /// Binds this ``shared``-like object to `instance` unless it is bound already; returns
    /// whether it bound.
    @discardableResult
    package func bind(_ instance: Analytics) -> Bool {
        guard let slot, instance.slot == nil else { return false }
        return slot.bind(instance.parts)
    }

    /// The engine of the instance this ``shared``-like object is bound to, if any.
    package var boundEngine: AnalyticsClient? { slot?.bound?.engine }

    /// Events dropped because `Defaults.maxPendingEvents` were kept before binding (0 for an
    /// instance).
    package var droppedBeforeInitialize: Int { slot?.droppedBeforeInitialize ?? 0 }

    /// Calls other than events kept before binding, callers waiting for an answer among them
    /// (0 for an instance).
    package var waitingCallers: Int { slot?.keptOperations ?? 0 }
}
