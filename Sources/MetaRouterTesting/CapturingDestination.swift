import Foundation
import MetaRouterCore

/// A destination that keeps every event it receives, for assertions. Read ``events`` after
/// `await analytics.performAndWait { _ in }`. Like every plugin it is not `Sendable`: the
/// instance it joined calls it on its executor, and ``events`` is read behind a lock.
public final class CapturingDestination: DestinationPlugin {
    public let key: String
    public let timeline = Timeline()
    private let captured = Locked<[Event]>([])

    /// A capturing destination named `key`.
    ///
    /// - Parameter key: The destination key.
    public init(key: String = "Capture") { self.key = key }

    /// The events received so far, in order.
    public var events: [Event] { captured.current }

    /// Forgets the captured events.
    public func clear() { captured.withLock { $0.removeAll() } }

    public func execute(event: Event) -> Event? {
        captured.withLock { $0.append(event) }
        return event
    }
}
