/// Holds a client's start: until the gate opens, the client keeps every call in memory, in
/// order (at most `Configuration.maxPendingEvents` events), and neither builds its plugins nor
/// reads or writes a file.
///
/// Two gates exist. On iOS, an app launched before the first unlock after a reboot
/// (prewarming, a background launch) reads data-protected files and `UserDefaults` as
/// missing: a client that started then would mint a new anonymousId over the real one and
/// open an empty event log. And an instance made for a write key whose previous instance is
/// still shutting down waits for it: two engines never read and write one event log and
/// identity file at once. Servers and macOS need the first gate never.
///
/// A class protocol: an optional gate is then one reference, which the configuration copies
/// without asking the Swift runtime for its type (an app's first `initialize` would pay that).
package protocol StartGate: AnyObject, Sendable {
    /// Calls `body` once, from any thread, as soon as the gate is open — at once when it
    /// already is.
    func whenOpen(_ body: @escaping @Sendable () -> Void)

    /// The line logged (info) when a client starts behind the gate closed.
    var waitingMessage: String { get }
}

extension StartGate {
    /// iOS's gate: protected data not yet available.
    package var waitingMessage: String {
        "sdk.waiting_for_protected_data: waiting for protected data (the device has not been unlocked since it started); calls are kept in order"
    }
}
