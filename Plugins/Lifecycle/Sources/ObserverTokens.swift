import Foundation
import MetaRouterCore

/// The notification observers of a lifecycle source. Once ``removeAll()`` has run (the source
/// stopped), observers registered later are removed at once, so a registration that comes
/// after a quick stop leaves nothing behind. Platform-neutral (Foundation's notification
/// center), so the Linux tests drive what the Apple sources rely on.
package final class ObserverTokens: @unchecked Sendable {  // `tokens` and `stopped` are only touched under `lock`
    private let lock = NSLock()
    private var tokens: [any NSObjectProtocol] = []
    private var stopped = false
    private let center: NotificationCenter

    /// A set of tokens with nothing observed yet.
    package init(center: NotificationCenter = .default) { self.center = center }

    /// Observes each name on `center`, calling `handler` with its transition.
    package func observe(_ pairs: [(Notification.Name, LifecycleTransition)], _ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        let center = self.center
        let added = pairs.map { name, transition in center.addObserver(forName: name, object: nil, queue: nil) { _ in handler(transition) } }
        let keep = lock.withLock { () -> Bool in
            if !stopped { tokens += added }
            return !stopped
        }
        if !keep { for token in added { center.removeObserver(token) } }
    }

    /// Removes every observer and refuses later ones.
    package func removeAll() {
        let removed = lock.withLock { () -> [any NSObjectProtocol] in
            stopped = true
            defer { tokens = [] }
            return tokens
        }
        for token in removed { center.removeObserver(token) }
    }
}
