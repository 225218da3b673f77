import Foundation
import MetaRouterCore

/// A destination that keeps every event it receives, for assertions. Read ``events`` from any
/// thread after `await analytics.settle()`.
public final class CapturingDestination: DestinationPlugin, @unchecked Sendable {  // captured events sit behind a lock; `timeline` is used only on the executor
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
