import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Who may use the inspector: the inspector is a local tool, so only this machine's own pages.
///
/// - Every request for the page or the API must name the inspector itself in `Host`
///   (`127.0.0.1`, `localhost` or `[::1]` with the bound port): a foreign name is a page that
///   rebound its DNS name to 127.0.0.1, and gets nothing.
/// - A request that changes something (`POST /api/…`) must also come from the page's own
///   `Origin` and carry this run's token (`X-MetaRouter-Token`), which the page reads from its
///   own HTML. A custom header cannot be sent across origins without a preflight, which the
///   inspector never answers, so another site's form or `fetch` cannot clear or fail batches.
/// - Ingestion (`POST …/v1/batch` and the rest) comes from SDKs, which send no `Origin`: a
///   request that carries a foreign one is a browser page posting events, and is refused.
///
/// A refusal is `403` with a one-line reason.
struct InspectorAccess: Sendable {
    /// The per-run token, 32 hex characters.
    let token: String
    private let port = NIOLockedValueBox(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        token = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Records the port the server bound.
    func bind(port: Int) { self.port.withLockedValue { $0 = port } }

    /// `Host` values naming the inspector.
    private var hosts: Set<String> {
        let port = self.port.withLockedValue { $0 }
        return ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    }

    /// Why a request for the page or the API is refused, or `nil`.
    func refusal(page request: Request) -> String? {
        guard let host = request.head.authority, hosts.contains(host.lowercased()) else {
            return "Host must be 127.0.0.1, localhost or [::1] with the inspector's port"
        }
        return nil
    }

    /// Why a request that changes state is refused, or `nil`.
    func refusal(change request: Request) -> String? {
        if let refused = refusal(page: request) { return refused }
        guard let origin = request.headers[.origin], hosts.contains(where: { "http://\($0)" == origin.lowercased() }) else {
            return "Origin must be the inspector's own page"
        }
        guard request.headers[.init(Self.tokenField)!] == token else { return "X-MetaRouter-Token must be this run's token (in the page's HTML)" }
        return nil
    }

    /// Why an ingestion request is refused, or `nil`: only one that a browser page on another
    /// origin sent.
    func refusal(ingest request: Request) -> String? {
        guard let origin = request.headers[.origin] else { return nil }
        return hosts.contains(where: { "http://\($0)" == origin.lowercased() }) ? nil : "ingestion does not take requests from web pages"
    }

    /// The header that carries the token.
    static let tokenField = "X-MetaRouter-Token"

    /// The `403` for `reason`.
    static func forbidden(_ reason: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .forbidden, headers: headers, body: .init(byteBuffer: .init(string: "forbidden: \(reason)\n")))
    }
}
