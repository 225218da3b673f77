#if os(Linux)
import Foundation
import MetaRouterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The libcurl handles, and the connections they keep, that every ``CurlTransport`` of the
/// process shares: a request takes an idle handle last used for its origin (so it reuses that
/// connection, whichever instance opened it) or a new one, and gives it back when it is done.
///
/// So a server with thousands of tenants sending to one ingestion host keeps as many
/// connections as it has requests in flight at once, not one per tenant. At most ``maxIdle``
/// handles wait between requests (for the process's pool, as many as ``RequestAdmission``
/// lets run at once), the least recently used closed first. What they hold counts against
/// the ``DescriptorBudget``, so over it the event logs give way.
///
/// A handle goes back reset by its next user (`curl_easy_reset` keeps only the connection and
/// DNS caches), and libcurl's cookie engine is never enabled, so nothing of one request
/// reaches the next but the connection.
final class CurlConnectionPool: Sendable {
    /// The process's pool, or `nil` where libcurl cannot be loaded.
    static let shared: CurlConnectionPool? = LibCurl.shared.map { CurlConnectionPool(curl: $0, maxIdle: RequestAdmission.limit) }

    /// A handle waiting in the pool, with what it is kept for.
    private struct Idle: @unchecked Sendable {  // an idle handle is used by nobody; taking it removes it under the lock
        let origin: String
        let handle: LibCurl.Handle
        /// Descriptors it holds: its connection (when kept) and libcurl's own wake-up pair.
        let descriptors: Int
    }

    private struct State {
        /// The process the handles belong to: a `fork()` child must not use its parent's
        /// connections.
        var owner = getpid()
        /// Idle handles, least recently returned first.
        var idle: [Idle] = []

        /// The idle handles, once they are known to be this process's own. A forked child
        /// forgets its parent's without closing them (closing could end the parent's TLS
        /// sessions); they leak, once.
        mutating func own() -> [Idle] {
            let process = getpid()
            if owner != process {
                owner = process
                DescriptorBudget.add(-idle.reduce(0) { $0 + $1.descriptors })
                idle = []
            }
            return idle
        }
    }

    let curl: LibCurl
    /// Handles kept between requests, across all origins.
    let maxIdle: Int
    private let state = Locked(State())

    /// A pool of its own (tests); the transports use ``shared``.
    init(curl: LibCurl, maxIdle: Int) {
        self.curl = curl
        self.maxIdle = max(1, maxIdle)
    }

    deinit {
        for kept in state.withLock({ $0.own() }) {
            DescriptorBudget.add(-kept.descriptors)
            curl.easyCleanup(kept.handle)
        }
    }

    /// Handles waiting between requests now.
    var idleCount: Int { state.withLock { $0.own().count } }

    /// An idle handle whose connection is to `origin`, or a new handle (`nil` only when libcurl
    /// cannot allocate one).
    func take(origin: String) -> LibCurl.Handle? {
        let found = state.withLock { state -> Idle? in
            guard let index = state.own().lastIndex(where: { $0.origin == origin }) else { return nil }
            return state.idle.remove(at: index)
        }
        guard let found else { return curl.easyInit() }
        DescriptorBudget.add(-found.descriptors)
        return found.handle
    }

    /// Gives back a handle after a request to `origin`, kept for the next request there; the
    /// least recently used beyond ``maxIdle`` is closed with its connection.
    func giveBack(_ handle: LibCurl.Handle, origin: String) {
        var socket = -1
        _ = curl.getLong(handle, LibCurl.Option.lastSocket, &socket)
        let returned = Idle(origin: origin, handle: handle, descriptors: socket >= 0 ? 3 : 2)
        DescriptorBudget.add(returned.descriptors)
        let evicted = state.withLock { state -> Idle? in
            _ = state.own()
            state.idle.append(returned)
            return state.idle.count > maxIdle ? state.idle.removeFirst() : nil
        }
        if let evicted {
            DescriptorBudget.add(-evicted.descriptors)
            curl.easyCleanup(evicted.handle)
        }
    }

    /// The key handles are kept under: scheme, host and port, as a connection is.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}
#endif
