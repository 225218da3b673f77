import Foundation
import MetaRouterCore

/// A change in the application's (or server process's) life, as a lifecycle source reports it.
public enum LifecycleTransition: Sendable, Hashable {
    /// The process started; `inBackground` when the system launched it without UI (background
    /// fetch, push), in which case the next activation counts as the cold open.
    case launched(inBackground: Bool)
    /// The app became active (foreground, receiving events).
    case didBecomeActive
    /// The app is about to become inactive (a call, Control Center, the app switcher).
    case willResignActive
    /// The app went to the background.
    case didEnterBackground
    /// The process is about to end; `signal` when a signal (SIGTERM, SIGINT) asked for it.
    case willTerminate(signal: Int32?)
}

/// Reports lifecycle transitions: UIKit, AppKit, a server process, or a manual source that
/// tests and unusual hosts drive. The state machine that turns transitions into events is
/// shared code.
package protocol LifecycleSource: Sendable {
    /// Starts reporting; `handler` may be called from any thread. The source reports
    /// ``LifecycleTransition/launched(inBackground:)`` first.
    ///
    /// - Parameter handler: Called with each transition, on any thread.
    func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void)
    /// Stops reporting.
    func stop()
    /// Asks the system to keep the process running while work that must not be frozen
    /// finishes (the upload started when the app goes to the background). Returns the closure
    /// that ends the request; it may be called more than once, from any thread, and only the
    /// first call counts. UIKit wraps `beginBackgroundTask`; other sources need nothing.
    ///
    /// - Parameter name: What the work is, for the platform's records.
    /// - Returns: What to call when the work is done.
    func beginFinishingWork(named name: String) -> @Sendable () -> Void
}

extension LifecycleSource {
    /// Nothing to ask for: the process keeps running on its own.
    ///
    /// - Parameter name: What the work is, for the platform's records.
    /// - Returns: What to call when the work is done.
    package func beginFinishingWork(named name: String) -> @Sendable () -> Void { {} }
}

/// Lifecycle transitions reported by hand: call ``send(_:)``. For hosts whose lifecycle the SDK
/// cannot observe (watchOS, an app extension, a server with its own shutdown) and for tests;
/// give it to `InitOptions.lifecycleSource`. Transitions sent before the instance starts
/// listening are kept and delivered, in order, when it does.
public final class ManualLifecycleSource: LifecycleSource {
    private let handler = LockedHandler()
    private let finishing = Locked(0)

    /// Finishing work begun and not yet ended (see ``beginFinishingWork(named:)``).
    package var finishingWorkInProgress: Int { finishing.current }

    /// A source that reports nothing until told.
    public init() {}

    /// Starts forwarding ``send(_:)`` calls to `handler`.
    ///
    /// - Parameter handler: Called with each transition ``send(_:)`` is given.
    package func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) { self.handler.set(handler) }

    /// Stops forwarding.
    package func stop() { handler.set(nil) }

    /// Reports `transition`.
    ///
    /// - Parameter transition: The transition to report.
    public func send(_ transition: LifecycleTransition) { handler.call(transition) }

    /// Counts the request as in progress until it is ended.
    ///
    /// - Parameter name: What the work is.
    /// - Returns: What to call when the work is done.
    package func beginFinishingWork(named name: String) -> @Sendable () -> Void {
        finishing.withLock { $0 += 1 }
        let ended = Locked(false)
        return { [finishing] in
            if ended.firstTime() { finishing.withLock { $0 -= 1 } }
        }
    }
}

/// A handler slot; transitions sent while it is empty wait for a handler.
struct LockedHandler: Sendable {
    private struct Slot {
        var handler: (@Sendable (LifecycleTransition) -> Void)?
        var waiting: [LifecycleTransition] = []
    }

    private let slot = Locked(Slot())

    func set(_ newHandler: (@Sendable (LifecycleTransition) -> Void)?) {
        let replay = slot.withLock { slot -> [LifecycleTransition] in
            slot.handler = newHandler
            guard newHandler != nil else { return [] }
            defer { slot.waiting = [] }
            return slot.waiting
        }
        for transition in replay { newHandler?(transition) }
    }

    func call(_ transition: LifecycleTransition) {
        let current = slot.withLock { slot -> (@Sendable (LifecycleTransition) -> Void)? in
            if slot.handler == nil { slot.waiting.append(transition) }
            return slot.handler
        }
        current?(transition)
    }
}
