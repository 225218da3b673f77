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
import MetaRouterCore

/// Notification observer tokens.
struct ObserverTokens: Sendable {
    private let tokens = Locked<[any NSObjectProtocol]>([])

    func append(_ token: any NSObjectProtocol) {
        tokens.withLock { $0.append(token) }
    }

    func removeAll() {
        let removed = tokens.withLock { tokens -> [any NSObjectProtocol] in
            defer { tokens = [] }
            return tokens
        }
        for token in removed { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
