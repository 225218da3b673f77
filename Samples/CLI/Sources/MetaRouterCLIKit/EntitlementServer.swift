import Foundation
import Hummingbird
import MetaRouter
import NIOConcurrencyHelpers
import NIOCore

/// The SDK's entitlement API (`Docs/Entitlements.md`) on 127.0.0.1, for developing against:
/// each user's keys come from `table` (a file re-read on every request), plus what purchases
/// granted in this run (evidence `grant:<key>`). `GET /v1/entitlements` answers with an ETag and
/// 304 for a matching `If-None-Match`, 401 without Basic credentials; `POST /v1/purchases`
/// answers 409 for a transaction id seen before. Other POSTs (the SDK's batches, when
/// `ingestionHost` points here) are accepted and counted.
public final class EntitlementServer: Sendable {
    private struct State {
        var granted: [String: Set<String>] = [:]
        var transactions: Set<String> = []
        var counts = (entitlementRequests: 0, purchases: 0, otherRequests: 0)
    }

    private let table: @Sendable () -> [String: [String]]?
    private let server = LoopbackServer()
    private let state = NIOLockedValueBox(State())

    /// Serves the users `table` returns (every request asks again; 503 while it returns `nil`).
    public init(table: @escaping @Sendable () -> [String: [String]]?) {
        self.table = table
    }

    /// Serves the file at `path`, `{"users": {"user-42": ["pro"]}}`, re-read on every request.
    public convenience init(file path: String) {
        self.init { (try? String(contentsOfFile: path, encoding: .utf8)).flatMap(Self.users(in:)) }
    }

    /// The users of a file's text, or `nil` when it is not `{"users": {id: [keys]}}`.
    public static func users(in text: String) -> [String: [String]]? {
        guard let users = (try? JSONText.parse(text))?["users"]?.objectValue else { return nil }
        var table: [String: [String]] = [:]
        for (user, keys) in users {
            guard let list = keys.arrayValue?.compactMap(\.stringValue), list.count == keys.arrayValue?.count else { return nil }
            table[user] = list
        }
        return table
    }

    /// Requests answered so far: for entitlements, purchases taken, and anything else.
    public var requests: (entitlementRequests: Int, purchases: Int, otherRequests: Int) { state.withLockedValue { $0.counts } }

    /// Starts listening on 127.0.0.1 (`port` 0 picks a free one); returns the base URL to use as
    /// `ingestionHost`.
    public func start(port: Int = 0) async throws -> URL {
        let router = Router()
        router.get("/v1/entitlements") { [self] request, _ -> Response in entitlements(request) }
        router.post("/v1/purchases") { [self] request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return purchase(request, body: Array(body.readableBytesView))
        }
        router.post("**") { [self] _, _ -> Response in
            state.withLockedValue { $0.counts.otherRequests += 1 }
            return Self.json(.ok, "{}")
        }
        let bound = try await server.start(router, name: "metarouter-entitlements", port: port)
        return URL(string: "http://127.0.0.1:\(bound)")!
    }

    /// Stops listening.
    public func stop() async {
        await server.stop()
    }

    private func entitlements(_ request: Request) -> Response {
        state.withLockedValue { $0.counts.entitlementRequests += 1 }
        guard request.headers[.authorization]?.hasPrefix("Basic ") == true else { return Self.json(.unauthorized, "{}") }
        guard let users = table() else { return Self.json(.serviceUnavailable, "{}") }
        let user = URLComponents(string: request.uri.description)?.queryItems?.first { $0.name == "userId" }?.value ?? ""
        let granted = state.withLockedValue { $0.granted[user] ?? [] }
        let keys = Set(users[user] ?? []).union(granted).sorted()
        let body = JSONText.bytes(["entitlements": .array(keys.map(JSON.string))])
        let tag = RuleServer.etag(of: keys.joined(separator: "\n"))
        var headers = HTTPFields()
        headers[.eTag] = tag
        if request.headers[.ifNoneMatch] == tag { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func purchase(_ request: Request, body: [UInt8]) -> Response {
        guard request.headers[.authorization]?.hasPrefix("Basic ") == true else { return Self.json(.unauthorized, "{}") }
        guard let json = try? JSONText.parse(body), let transaction = json["transactionId"]?.stringValue, !transaction.isEmpty else {
            return Self.json(.badRequest, #"{"error": "a transactionId is required"}"#)
        }
        let evidence = json["evidence"]?.stringValue ?? ""
        let user = json["userId"]?.stringValue
        return state.withLockedValue { state in
            guard state.transactions.insert(transaction).inserted else { return Self.json(.conflict, "{}") }
            state.counts.purchases += 1
            if let user, evidence.hasPrefix("grant:") { state.granted[user, default: []].insert(String(evidence.dropFirst(6))) }
            return Self.json(.ok, "{}")
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
