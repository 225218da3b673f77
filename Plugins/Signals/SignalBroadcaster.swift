import MetaRouterCore

/// Receives signals as they are added, and in groups when they are relayed (every
/// `relayCount` signals or `relayInterval` seconds). Called on the executor: return quickly, and
/// hand slow work (a network request) to a transport that answers later. A broadcaster that
/// needs only one of the two leaves the other empty.
public protocol SignalBroadcaster: AnyObject, Sendable {
    /// A signal was added to the buffer.
    ///
    /// - Parameter signal: The signal just added to the buffer.
    func added(_ signal: Signal)
    /// The signals added since the last relay, oldest first.
    ///
    /// - Parameter signals: The signals to relay, oldest first.
    func relay(_ signals: [Signal])
}
