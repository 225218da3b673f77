import AsyncHTTPClient
import Foundation
import MetaRouter
import NIOCore
import NIOHTTP1

/// The SDK's delivery over AsyncHTTPClient (`InitOptions.transport`): SwiftNIO's event loops
/// and connection pool instead of URLSession or libcurl. One task per request (a batch), never
/// per event. Each request is bounded by its own timeout; the answer's body is read up to
/// `maxResponseBytes` and reported truncated beyond it, as the SDK's own transports do.
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    private let maxResponseBytes: Int

    /// Sends with `client` (the shared one unless given), keeping at most `maxResponseBytes` of
    /// an answer (1 MiB).
    public init(client: HTTPClient = .shared, maxResponseBytes: Int = 1 << 20) {
        self.client = client
        self.maxResponseBytes = max(0, maxResponseBytes)
    }

    /// Sends the request and reports the status, headers and body once.
    public func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        let limit = maxResponseBytes
        Task { [client] in
            do {
                var outgoing = HTTPClientRequest(url: request.url.absoluteString)
                outgoing.method = HTTPMethod(rawValue: request.method)
                for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
                if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
                let timeout = TimeAmount.milliseconds(Int64(max(0.001, min(request.timeout, 86_400)) * 1000))
                let response = try await client.execute(outgoing, timeout: timeout)
                var body = Data()
                var truncated = false
                // Read to the end (the connection goes back to the pool), keeping the first bytes.
                for try await chunk in response.body {
                    let room = limit - body.count
                    if chunk.readableBytes > room { truncated = true }
                    if room > 0 { body.append(contentsOf: chunk.readableBytesView.prefix(room)) }
                }
                var headers: [String: String] = [:]
                for header in response.headers { headers[header.name] = header.value }
                completion(.success(TransportResponse(status: Int(response.status.code), headers: headers, body: body, isTruncated: truncated)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
