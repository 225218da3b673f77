import Foundation
import MetaRouterCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request of a delivery attempt.
public struct TransportRequest: Sendable, Hashable {
    /// The endpoint.
    public var url: URL
    /// `POST` for batches.
    public var method: String
    /// Request headers.
    public var headers: [String: String]
    /// The body.
    public var body: Data
    /// How long the whole request may take, in seconds.
    public var timeout: TimeInterval

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: Where the request goes.
    ///   - method: The HTTP method (`POST` unless given).
    ///   - headers: The request's headers.
    ///   - body: The request's body.
    ///   - timeout: Seconds before the request counts as failed.
    public init(url: URL, method: String = "POST", headers: [String: String] = [:], body: Data, timeout: TimeInterval = Defaults.requestTimeoutSeconds) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// What came back: the status and the headers (names lowercased).
public struct TransportResponse: Sendable, Hashable {
    /// HTTP status code.
    public var status: Int
    /// Response headers with lowercased names.
    public var headers: [String: String]
    /// The response body, up to the transport's limit (1 MiB unless set otherwise).
    public var body: Data
    /// Whether the body went on past the transport's limit: `body` holds only its first bytes,
    /// and a payload that must be whole (a rule set) is to be refused.
    public var isTruncated: Bool

    /// Creates a response; header names are lowercased.
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - headers: The response's headers.
    ///   - body: The response's body, as far as it was read.
    ///   - isTruncated: Whether the body was cut at the transport's limit.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), isTruncated: Bool = false) {
        self.status = status
        self.body = body
        self.isTruncated = isTruncated
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The value of the header called `name`, in any case (`"Retry-After"`, `"retry-after"`).
    ///
    /// - Parameter name: The header's name.
    /// - Returns: Its value, or `nil` when the answer has no such header.
    public func header(_ name: String) -> String? {
        headers[name] ?? headers[name.lowercased()]
    }
}

/// Sends HTTP requests for delivery. Supply your own (the server sample uses
/// AsyncHTTPClient); the default uses URLSession.
///
/// A transport calls `completion` exactly once, from any thread, with a response or the error
/// that prevented one (timeouts included). It must bound each request by `timeout` itself and
/// must not be asked to cancel: the SDK never cancels an in-flight request. `send` returns
/// without waiting for the answer: a shutdown that passes its deadline waits for a `send` in
/// progress to return.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and reports the outcome once.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - completion: Called once, on any thread, with the response or the error.
    func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void)
}

/// A transport that holds resources (a session, a kept connection) to release when its
/// destination shuts down.
package protocol InvalidatableHTTPTransport: HTTPTransport {
    /// Lets requests already handed over finish, then releases the resources.
    func invalidate()
}

/// The transports the SDK ships.
package enum HTTPTransports {
    /// What a destination uses when none is given: libcurl on Linux (where
    /// FoundationNetworking's URLSession stalls under load), and `URLSession` elsewhere or where
    /// libcurl cannot be loaded. `timeout` bounds the URLSession's requests; the libcurl
    /// transport bounds each by its own ``TransportRequest/timeout``, which delivery sets to
    /// the same value. See `Docs/Delivery.md`.
    package static func standard(timeout: TimeInterval) -> any HTTPTransport {
        standard(timeout: timeout, maxResponseBytes: Defaults.maxResponseBytes)
    }

    /// ``standard(timeout:)`` keeping at most `maxResponseBytes` of a response body.
    package static func standard(timeout: TimeInterval, maxResponseBytes: Int) -> any InvalidatableHTTPTransport {
        #if os(Linux)
        if let curl = CurlTransport(maxResponseBytes: maxResponseBytes) { return curl }
        #endif
        return URLSessionTransport(timeout: timeout, maxResponseBytes: maxResponseBytes)
    }
}

/// A transport over one `URLSession` (FoundationNetworking on Linux) with no cache and no
/// cookies: the default on Apple platforms. Requests are bounded by the session's timeouts and
/// never cancelled — on Linux, cancelling an in-flight task can crash the process
/// (swift-corelibs-foundation #3296).
///
/// A response body is kept up to `maxResponseBytes` as it arrives. Past the limit, on Apple
/// platforms the transfer is stopped there (the one cancellation: the answer is already
/// decided) so nothing more is downloaded; on Linux the rest is read and dropped. Either way
/// the response says it was cut (``TransportResponse/isTruncated``).
///
/// On Linux, where ``CurlTransport`` is the default, every request of this transport carries
/// `Connection: close`: when a server drops a reused keep-alive connection, FoundationNetworking
/// never completes the task; on a fresh connection the same drop is a prompt, retryable error.
package final class URLSessionTransport: InvalidatableHTTPTransport {
    private let session: URLSession
    private let receiver: ResponseReceiver

    /// A transport whose requests give up after `timeout` seconds and that keeps at most
    /// `maxResponseBytes` of a response body.
    package init(timeout: TimeInterval = Defaults.requestTimeoutSeconds, maxResponseBytes: Int = Defaults.maxResponseBytes) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.urlCache = nil
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = 2
        receiver = ResponseReceiver(maxBodyBytes: max(0, maxResponseBytes))
        session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
    }

    /// Lets requests in flight finish, then releases the session (at shutdown).
    package func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// Sends the request with a data task; cancels it only when its body outgrows the limit,
    /// and only on Apple platforms.
    package func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        #if os(Linux)
        urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        #endif
        let task = session.dataTask(with: urlRequest)
        receiver.expect(task, completion: completion)
        task.resume()
    }
}

/// The session delegate of a ``URLSessionTransport``: collects each task's response and body,
/// up to the limit, and completes the task's request once.
private final class ResponseReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // `tasks` is only touched under its lock
    private struct Received {
        var completion: @Sendable (Result<TransportResponse, any Error>) -> Void
        var body = Data()
        var truncated = false
    }

    private let maxBodyBytes: Int
    private let tasks = Locked<[Int: Received]>([:])

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    func expect(_ task: URLSessionTask, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        tasks.withLock { $0[task.taskIdentifier] = Received(completion: completion) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let cut = tasks.withLock { tasks -> Bool in
            // Mutated in place: a copy of the entry would copy its body on every append.
            guard let kept = tasks[id]?.body.count, tasks[id]?.truncated == false else { return false }
            let room = maxBodyBytes - kept
            if room > 0 { tasks[id]?.body.append(data.prefix(room)) }
            guard data.count > room else { return false }
            tasks[id]?.truncated = true
            return true
        }
        guard cut else { return }
        #if !os(Linux)
        dataTask.cancel()
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let received = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        guard let http = task.response as? HTTPURLResponse, error == nil || received.truncated else {
            received.completion(.failure(error ?? URLError(.badServerResponse)))
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        received.completion(.success(TransportResponse(
            status: http.statusCode, headers: headers, body: received.body, isTruncated: received.truncated)))
    }
}
