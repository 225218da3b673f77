import Foundation
import MetaRouterCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Network signals from the app's own `URLSession`s, with nothing swizzled: the app passes the
/// configurations it wants watched to ``watch(_:)``, and ``SignalsConfiguration/network`` on an
/// instance sends their signals to that instance's buffer.
///
/// Each request through such a session becomes a `network` signal `{action: request, url}`
/// and its answer `{action: response, url, statusCode, data?}` — `data` only when the body is
/// JSON (by `Content-Type`) and at most ``Options/maxBodyBytes``; headers are never kept.
/// Hosts are filtered as in the seed: `allowedHosts` (all when empty), then `blockedHosts`; the
/// SDK's own hosts (its ingestion host and rule server, added by the instance) are always
/// blocked. An entry is a host (`api.example.com`) or a host and port (`127.0.0.1:8080`).
public enum NetworkSignals {
    /// Which requests become signals.
    public struct Options: Sendable {
        /// Hosts watched; every host when empty.
        public var allowedHosts: Set<String> = []
        /// Hosts never watched.
        public var blockedHosts: Set<String> = []
        /// The SDK's own hosts (its ingestion host and rule server), always blocked; the instance
        /// adds them.
        package var ownHosts: Set<String> = []
        /// Response bodies above this size are not kept (64 KiB).
        public var maxBodyBytes = 64 * 1024

        /// Watch `allowedHosts` (every host when empty) but not `blockedHosts`.
        ///
        /// - Parameters:
        ///   - allowedHosts: The hosts whose requests become signals (all unless given).
        ///   - blockedHosts: Hosts whose requests never do.
        public init(allowedHosts: Set<String> = [], blockedHosts: Set<String> = []) {
            self.allowedHosts = allowedHosts
            self.blockedHosts = blockedHosts
        }

        /// Whether requests to `url` become signals.
        package func watches(_ url: URL?) -> Bool {
            guard let host = url?.host?.lowercased() else { return false }
            let names = [host] + (url?.port.map { ["\(host):\($0)"] } ?? [])
            func listed(_ entries: Set<String>) -> Bool { names.contains { entries.contains($0) } }
            if listed(ownHosts) || listed(blockedHosts) { return false }
            return allowedHosts.isEmpty || listed(allowedHosts)
        }
    }

    private struct Watch: Sendable {
        weak var analytics: AnalyticsClient?
        let options: Options
        /// The instance's signals plugin, reached through the handle made when it started.
        let signals: @Sendable (Timeline) -> SignalsPlugin?
    }

    private static let watches = Locked<[Watch]>([])

    /// Sends the network signals of watched sessions to `analytics` (its `SignalsPlugin`, which
    /// `signals` hands out on the executor), filtered by `options`. Instances that shut down are
    /// left out.
    package static func send(
        to analytics: AnalyticsClient, options: Options = Options(), signals: @escaping @Sendable (Timeline) -> SignalsPlugin?
    ) {
        watches.withLock { list in
            list.removeAll { $0.analytics == nil || $0.analytics === analytics }
            list.append(Watch(analytics: analytics, options: options, signals: signals))
        }
    }

    /// Stops sending network signals to `analytics`.
    package static func stopSending(to analytics: AnalyticsClient) {
        watches.withLock { $0.removeAll { $0.analytics == nil || $0.analytics === analytics } }
    }

    /// Makes the sessions created from `configuration` watched: puts the SDK's `URLProtocol`
    /// first in its `protocolClasses` (once, however often it is called). Their requests then
    /// become signals for every instance whose ``SignalsConfiguration/network`` watches the host;
    /// requests no instance watches go on untouched.
    ///
    /// - Parameter configuration: The session configuration whose requests become network signals.
    public static func watch(_ configuration: URLSessionConfiguration) {
        let others = (configuration.protocolClasses ?? []).filter { $0 != NetworkSignalsProtocol.self }
        configuration.protocolClasses = [NetworkSignalsProtocol.self] + others
    }

    /// Whether any instance watches `url`'s host.
    static func isWatched(_ url: URL?) -> Bool {
        watches.withLock { list in list.contains { $0.analytics != nil && $0.options.watches(url) } }
    }

    /// Emits `content` to every instance watching `url`'s host; the body only where it fits.
    static func emit(url: URL, statusCode: Int?, body: Data?, contentType: String?) {
        let now = Date()
        for watch in watches.withLock({ $0 }) where watch.options.watches(url) {
            guard let analytics = watch.analytics else { continue }
            var data: JSON?
            if let body, body.count <= watch.options.maxBodyBytes, contentType?.lowercased().contains("json") ?? false {
                data = try? JSONParser.parse(body)
            }
            let content: SignalContent = statusCode.map { .network(.response, url: url.absoluteString, statusCode: $0, data: data) }
                ?? .network(.request, url: url.absoluteString)
            let signals = watch.signals
            analytics.perform { timeline in signals(timeline)?.add(content, at: now, timeline: timeline) }
        }
    }
}
