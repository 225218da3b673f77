/// Tells a client when the files it keeps (the identity store, the event log) can be read.
///
/// On iOS, an app launched before the first unlock after a reboot (prewarming, a background
/// launch) reads data-protected files and `UserDefaults` as missing: a client that started then
/// would mint a new anonymousId over the real one and open an empty event log. With a gate, the
/// client keeps every call in memory, in order, and configures its plugins only once the gate
/// opens. Servers and macOS need none.
package protocol ProtectedDataGate: Sendable {
    /// Calls `body` once, from any thread, as soon as protected data is available — at once
    /// when it already is.
    func whenAvailable(_ body: @escaping @Sendable () -> Void)
}
