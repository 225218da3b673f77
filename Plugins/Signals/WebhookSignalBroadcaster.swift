import Foundation
import MetaRouterCore
import MetaRouterDelivery

/// POSTs each relay of signals, as `{"signals": [{anonymousId, timestamp, index, type, data}, …]}`,
/// to a URL through an ``HTTPTransport`` (the SDK's own by default), as the seed's
/// `WebhookBroadcaster` does. Signals are diagnostics, not events: an answer other than 2xx is
/// counted and the relay is not sent again. Single signals are never posted on their own.
public final class WebhookSignalBroadcaster: SignalBroadcaster {
    /// Where relays go.
    package let url: URL
    private let transport: any HTTPTransport
    private let headers: [String: String]
    private let outcomes = Locked((sent: 0, failed: 0))

    /// Relays to `url` with `headers` (e.g. an authorization header) through `transport` (the
    /// SDK's default transport when `nil`).
    ///
    /// - Parameters:
    ///   - url: Where signals are posted.
    ///   - headers: Headers every post carries.
    ///   - transport: How posts are sent; `nil` for the SDK's default.
    public init(url: URL, headers: [String: String] = [:], transport: (any HTTPTransport)? = nil) {
        self.url = url
        self.headers = headers.merging(["Content-Type": "application/json"]) { mine, _ in mine }
        self.transport = transport ?? HTTPTransports.standard(timeout: Defaults.requestTimeoutSeconds)
    }

    /// Relays answered 2xx, and the others.
    package var results: (sent: Int, failed: Int) { outcomes.current }

    public func added(_ signal: Signal) {}

    public func relay(_ signals: [Signal]) {
        let body = JSONWriter.bytes(.object(["signals": .array(signals.map(\.json))]))
        let request = TransportRequest(url: url, headers: headers, body: Data(body), timeout: Defaults.requestTimeoutSeconds)
        transport.send(request) { [outcomes] result in
            let delivered = (try? result.get()).map { (200..<300).contains($0.status) } ?? false
            outcomes.withLock { delivered ? ($0.sent += 1) : ($0.failed += 1) }
        }
    }
}
