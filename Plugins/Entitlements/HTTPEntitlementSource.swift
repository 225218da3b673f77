import Foundation
import MetaRouterCore
import MetaRouterDelivery

/// The default ``EntitlementSource``: the ingestion host's entitlement API, with the write key
/// as Basic credentials (`Docs/Entitlements.md` is the wire format).
///
/// - `GET {host}/v1/entitlements?userId=…` with `If-None-Match`: 200 `{"entitlements": [...]}`
///   (an `ETag` is kept), 304 unchanged, 401/403 unauthorized, anything else (or a body that is
///   not that object) unavailable.
/// - `POST {host}/v1/purchases` with `Idempotency-Key: <transactionId>`: 2xx or 409 (already
///   seen) accepted, 400/422 rejected for good, 401/403 unauthorized, anything else unavailable.
package struct HTTPEntitlementSource: EntitlementSource {
    private let host: URL
    private let authorization: String
    /// The transport of the next request.
    private let transport: @Sendable () -> any HTTPTransport
    private let timeout: TimeInterval

    /// A source whose requests all go through `transport`.
    package init(host: URL, writeKey: String, transport: any HTTPTransport, timeout: TimeInterval = 30) {
        self.init(host: host, writeKey: writeKey, timeout: timeout) { transport }
    }

    /// A source whose every request goes through a transport `transport` makes for it. The
    /// standard transport on Linux sends one request at a time: a fetch for a previous user whose
    /// answer is slow in coming (up to the timeout) would hold up the fetch for the user in
    /// force, which the plugin starts at once (``EntitlementsPlugin/userDidChange(_:)``). With a
    /// transport of its own, it waits for nothing of the other's; the connections are still the
    /// process's (``CurlConnectionPool``).
    package init(host: URL, writeKey: String, timeout: TimeInterval = 30, transportForEachRequest transport: @escaping @Sendable () -> any HTTPTransport) {
        self.host = host
        authorization = "Basic " + Data("\(writeKey):".utf8).base64EncodedString()
        self.transport = transport
        self.timeout = timeout
    }

    package func entitlements(for userId: String, etag: String?) async throws -> EntitlementAnswer {
        guard var components = URLComponents(url: host.appendingPathComponent("v1/entitlements"), resolvingAgainstBaseURL: false) else {
            throw EntitlementError.unavailable("cannot build a URL from \(host.absoluteString)")
        }
        components.queryItems = [URLQueryItem(name: "userId", value: userId)]
        // `+` is a space to many servers' query parsers; the id is sent as itself.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components.percentEncodedQuery = query
        guard let url = components.url else { throw EntitlementError.unavailable("cannot build a URL from \(host.absoluteString)") }
        var headers = ["Authorization": authorization, "Accept": "application/json", "User-Agent": DeliveryHeaders.userAgent]
        if let etag { headers["If-None-Match"] = etag }
        let response = try await send(TransportRequest(url: url, method: "GET", headers: headers, body: Data(), timeout: timeout))
        switch response.status {
        case 200:
            guard !response.isTruncated, let json = try? JSONParser.parse(response.body),
                let keys = EntitlementStore.entitlements(from: json["entitlements"])
            else { throw EntitlementError.unavailable("the answer is not {\"entitlements\": [strings]} within the limits") }
            return .entitlements(keys, etag: response.headers["etag"])
        case 304 where etag != nil:
            return .unchanged
        case 401, 403:
            throw EntitlementError.unauthorized
        default:
            throw EntitlementError.unavailable("HTTP \(response.status)")
        }
    }

    package func submitPurchase(transactionId: String, evidence: String, userId: String?, anonymousId: String?) async throws {
        let body: JSON = [
            "transactionId": .string(transactionId), "evidence": .string(evidence),
            "userId": userId.map(JSON.string) ?? .null, "anonymousId": anonymousId.map(JSON.string) ?? .null,
        ]
        let headers = [
            "Authorization": authorization, "Content-Type": "application/json", "Idempotency-Key": transactionId,
            "User-Agent": DeliveryHeaders.userAgent,
        ]
        let request = TransportRequest(
            url: host.appendingPathComponent("v1/purchases"), method: "POST", headers: headers, body: Data(JSONWriter.bytes(body)), timeout: timeout)
        let response = try await send(request)
        switch response.status {
        case 200..<300, 409: return
        case 400, 422: throw EntitlementError.rejected(status: response.status)
        case 401, 403: throw EntitlementError.unauthorized
        default: throw EntitlementError.unavailable("HTTP \(response.status)")
        }
    }

    private func send(_ request: TransportRequest) async throws -> TransportResponse {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<TransportResponse, any Error>, Never>) in
            transport().send(request) { continuation.resume(returning: $0) }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): throw EntitlementError.unavailable(error.localizedDescription)
        }
    }
}
