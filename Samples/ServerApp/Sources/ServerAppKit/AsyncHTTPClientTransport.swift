import AsyncHTTPClient
import Foundation
import MetaRouter
import NIOCore
import NIOHTTP1

/// Delivery over AsyncHTTPClient: connection reuse, no URLSession. One task per batch.
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient

    /// Sends with `client` (the shared one unless given).
    public init(client: HTTPClient = .shared) { self.client = client }

    /// Posts the request and reports the status and headers once.
    public func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        Task {
            do {
                var outgoing = HTTPClientRequest(url: request.url.absoluteString)
                outgoing.method = HTTPMethod(rawValue: request.method)
                for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
                outgoing.body = .bytes(ByteBuffer(bytes: request.body))
                let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(request.timeout * 1000)))
                // Reading the (small) reply body hands the connection back to the pool at once.
                _ = try await response.body.collect(upTo: 1 << 20)
                var headers: [String: String] = [:]
                for header in response.headers { headers[header.name] = header.value }
                completion(.success(TransportResponse(status: Int(response.status.code), headers: headers)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
