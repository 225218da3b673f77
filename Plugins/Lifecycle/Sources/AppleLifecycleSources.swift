#if canImport(UIKit) && !os(watchOS)
import Foundation
import MetaRouterCore
import MetaRouterPlatform
import UIKit

/// UIKit's lifecycle (iOS, tvOS, iPadOS, visionOS, Mac Catalyst; scene-based apps too:
/// UIApplication still posts the app-level notifications). Thin glue over
/// `LifecycleStateMachine`. In an app extension, where there is no `UIApplication`, it reports
/// the launch and observes nothing.
package final class UIKitLifecycleSource: LifecycleSource {
    private let observers = ObserverTokens()

    /// A source reading `UIApplication` notifications.
    package init() {}

    /// Reports the launch state, then the notifications. Both happen in one main-actor task
    /// (UIKit isolates `UIApplication` and its notification names to the main actor, and posts
    /// the notifications there), so no transition falls between the state read and the
    /// observers. A task rather than `MainActor.assumeIsolated`, which older runtimes may not
    /// honour outside a task.
    package func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        let observers = observers
        Task { @MainActor in
            let state = UIKitApplication.shared()?.applicationState
            handler(.launched(inBackground: state == .background))
            guard !AppExtension.isExtension(bundlePath: Bundle.main.bundlePath) else { return }
            let pairs: [(Notification.Name, LifecycleTransition)] = [
                (UIApplication.didBecomeActiveNotification, .didBecomeActive),
                (UIApplication.willResignActiveNotification, .willResignActive),
                (UIApplication.didEnterBackgroundNotification, .didEnterBackground),
                (UIApplication.willTerminateNotification, .willTerminate(signal: nil)),
            ]
            observers.observe(pairs, handler)
        }
    }

    /// Stops observing.
    package func stop() { observers.removeAll() }

    /// Asks iOS for background time (`beginBackgroundTask`) until the returned closure is
    /// called or the time runs out; nothing in an app extension. Both ends run on the main
    /// actor; an end that comes first makes the begin end at once.
    package func beginFinishingWork(named name: String) -> @Sendable () -> Void {
        let request = BackgroundWorkRequest()
        Task { @MainActor in
            guard let application = UIKitApplication.shared() else { return }
            let identifier = application.beginBackgroundTask(withName: name) {
                Task { @MainActor in Self.end(request) }
            }
            if request.begun(identifier: identifier.rawValue) { application.endBackgroundTask(identifier) }
        }
        return { Task { @MainActor in Self.end(request) } }
    }

    @MainActor
    private static func end(_ request: BackgroundWorkRequest) {
        guard let identifier = request.end(), let application = UIKitApplication.shared() else { return }
        application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: identifier))
    }
}
#endif

#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit

/// AppKit's lifecycle (macOS): launch, activation, hiding and termination.
package final class AppKitLifecycleSource: LifecycleSource {
    private let observers = ObserverTokens()

    /// A source reading `NSApplication` notifications.
    package init() {}

    /// Reports the launch, then the notifications, on the main actor (AppKit isolates
    /// `NSApplication` and its notification names to it).
    package func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        let observers = observers
        Task { @MainActor in
            handler(.launched(inBackground: false))
            let pairs: [(Notification.Name, LifecycleTransition)] = [
                (NSApplication.didBecomeActiveNotification, .didBecomeActive),
                (NSApplication.willResignActiveNotification, .willResignActive),
                (NSApplication.didHideNotification, .didEnterBackground),
                (NSApplication.willTerminateNotification, .willTerminate(signal: nil)),
            ]
            observers.observe(pairs, handler)
        }
    }

    /// Stops observing.
    package func stop() { observers.removeAll() }
}
#endif
