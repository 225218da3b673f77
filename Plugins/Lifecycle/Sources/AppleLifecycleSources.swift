#if canImport(UIKit) && !os(watchOS)
import UIKit

/// UIKit's lifecycle (iOS, tvOS, iPadOS; scene-based apps too: UIApplication still posts the
/// app-level notifications). Thin glue over `LifecycleStateMachine`.
public final class UIKitLifecycleSource: LifecycleSource {
    private let observers = ObserverTokens()

    /// A source reading `UIApplication` notifications.
    public init() {}

    /// Reports the launch state, then the notifications.
    public func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                handler(.launched(inBackground: UIApplication.shared.applicationState == .background))
            }
        }
        let center = NotificationCenter.default
        let pairs: [(Notification.Name, LifecycleTransition)] = [
            (UIApplication.didBecomeActiveNotification, .didBecomeActive),
            (UIApplication.willResignActiveNotification, .willResignActive),
            (UIApplication.didEnterBackgroundNotification, .didEnterBackground),
            (UIApplication.willTerminateNotification, .willTerminate(signal: nil)),
        ]
        for (name, transition) in pairs {
            observers.append(center.addObserver(forName: name, object: nil, queue: nil) { _ in handler(transition) })
        }
    }

    /// Stops observing.
    public func stop() { observers.removeAll() }
}
#endif

#if canImport(AppKit)
import AppKit

/// AppKit's lifecycle (macOS): launch, activation, hiding and termination.
public final class AppKitLifecycleSource: LifecycleSource {
    private let observers = ObserverTokens()

    /// A source reading `NSApplication` notifications.
    public init() {}

    /// Reports the launch, then the notifications.
    public func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        handler(.launched(inBackground: false))
        let center = NotificationCenter.default
        let pairs: [(Notification.Name, LifecycleTransition)] = [
            (NSApplication.didBecomeActiveNotification, .didBecomeActive),
            (NSApplication.willResignActiveNotification, .willResignActive),
            (NSApplication.didHideNotification, .didEnterBackground),
            (NSApplication.willTerminateNotification, .willTerminate(signal: nil)),
        ]
        for (name, transition) in pairs {
            observers.append(center.addObserver(forName: name, object: nil, queue: nil) { _ in handler(transition) })
        }
    }

    /// Stops observing.
    public func stop() { observers.removeAll() }
}
#endif

#if canImport(UIKit) || canImport(AppKit)
import Foundation

/// Notification observer tokens, guarded by a lock.
final class ObserverTokens: @unchecked Sendable {  // `tokens` is only touched under `lock`
    private let lock = NSLock()
    private var tokens: [any NSObjectProtocol] = []

    func append(_ token: any NSObjectProtocol) {
        lock.lock()
        tokens.append(token)
        lock.unlock()
    }

    func removeAll() {
        lock.lock()
        let removed = tokens
        tokens = []
        lock.unlock()
        for token in removed { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
