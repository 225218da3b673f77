import MetaRouterCore

/// One request for background time as a platform grants it (iOS's `beginBackgroundTask`):
/// begun once with the identifier the platform returned, and ended once, by whichever comes
/// first of the SDK and the expiry. An end that comes before the begin makes the begin end at
/// once. Platform-neutral, so the Linux tests drive every order; the UIKit source only forwards.
package final class BackgroundWorkRequest: Sendable {
    private struct State {
        var identifier: Int?
        var ended = false
    }

    private let state = Locked(State())

    /// A request not begun yet.
    package init() {}

    /// Records the identifier the platform returned; `true` when the request must be ended at
    /// once because its end came first.
    package func begun(identifier: Int) -> Bool {
        state.withLock { state in
            state.identifier = identifier
            return state.ended
        }
    }

    /// Marks the request ended; the identifier to end now, or `nil` when it is not begun yet
    /// (``begun(identifier:)`` will say so) or was ended already.
    package func end() -> Int? {
        state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state.identifier
        }
    }
}
