#if os(Linux)
import Foundation
import MetaRouterCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport on Linux: libcurl's easy interface, driven by one serial queue per
/// transport, over handles (and their connections) that every transport of the process shares
/// through ``CurlConnectionPool``: tenants sending to one host reuse each other's connections.
///
/// Why not URLSession here: FoundationNetworking drives libcurl's multi interface from
/// dispatch sources, and under load 1–4 % of its requests stall (the collector sees the
/// request, the answer never reaches the task) until the timeout; on a kept connection that
/// the server drops, the task hangs until its timeout. Measured over loopback with two busy
/// processes beside it, 1,100 requests of 1–66 KB: URLSession stalled on 16 (4 of 600 at
/// 1 KB, 5 of 300 at 12 KB, 7 of 200 at 66 KB; 5 s each), the easy interface on none
/// (`Docs/Delivery.md`). The easy interface also re-sends a request whose kept connection
/// turned out dead before any answer, as curl does.
///
/// Requests are bounded by their timeout and never cancelled; the completion runs exactly
/// once, on the transport's queue.
package final class CurlTransport: InvalidatableHTTPTransport, @unchecked Sendable {  // `invalidated` is touched only on `queue`
    private let pool: CurlConnectionPool
    private var curl: LibCurl { pool.curl }
    private let queue = DispatchQueue(label: "metarouter.curl-transport", qos: .utility)
    private var invalidated = false
    private let maxResponseBytes: Int

    /// A transport over the process's libcurl that keeps at most `maxResponseBytes` of a
    /// response body, or `nil` where libcurl cannot be loaded.
    package convenience init?(maxResponseBytes: Int = Defaults.maxResponseBytes) {
        guard let pool = CurlConnectionPool.shared else { return nil }
        self.init(pool: pool, maxResponseBytes: maxResponseBytes)
    }

    /// A transport over `pool` (tests: a pool of their own).
    init(pool: CurlConnectionPool, maxResponseBytes: Int = Defaults.maxResponseBytes) {
        self.pool = pool
        self.maxResponseBytes = max(0, maxResponseBytes)
    }

    /// Sends the request on the transport's queue; one request at a time per transport.
    package func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        RequestAdmission.admit { [self] in
            queue.async {
                let outcome = self.perform(request)
                RequestAdmission.finished()
                completion(outcome)
            }
        }
    }

    /// Refuses requests handed over after this; the connections stay with the process's pool.
    package func invalidate() {
        queue.async { self.invalidated = true }
    }

    private func perform(_ request: TransportRequest) -> Result<TransportResponse, any Error> {
        guard !invalidated else { return .failure(URLError(.cancelled)) }
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let origin = CurlConnectionPool.origin(of: request.url)
        else { return .failure(URLError(.unsupportedURL)) }
        guard let handle = pool.take(origin: origin) else { return .failure(URLError(.cannotConnectToHost)) }
        defer { pool.giveBack(handle, origin: origin) }
        curl.easyReset(handle)
        let answer = ResponseCollector(maxBodyBytes: maxResponseBytes)
        var list: OpaquePointer?
        defer { curl.listFree(list) }
        for (name, value) in request.headers where Self.isSafe(name) && Self.isSafe(value) {
            list = curl.listAppend(list, "\(name): \(value)")
        }
        // No `Expect: 100-continue` round trip before the body.
        list = curl.listAppend(list, "Expect:")
        let code: Int32 = request.url.absoluteString.withCString { url in
            request.method.withCString { method in
                let body = request.body.isEmpty ? Data([0]) : request.body
                return body.withUnsafeBytes { bytes in
                    _ = curl.setPointer(handle, LibCurl.Option.url, url)
                    _ = curl.setLong(handle, LibCurl.Option.protocols, LibCurl.Option.httpAndHTTPS)
                    _ = curl.setLong(handle, LibCurl.Option.redirectProtocols, LibCurl.Option.httpAndHTTPS)
                    _ = curl.setLong(handle, LibCurl.Option.noSignal, 1)
                    _ = curl.setLong(handle, LibCurl.Option.timeoutMs, Self.milliseconds(request.timeout))
                    _ = curl.setPointer(handle, LibCurl.Option.httpHeader, UnsafeRawPointer(list))
                    _ = curl.setLong(handle, LibCurl.Option.post, 1)
                    _ = curl.setPointer(handle, LibCurl.Option.postFields, bytes.baseAddress)
                    _ = curl.setLong(handle, LibCurl.Option.postFieldSize, request.body.count)
                    if request.method != "POST" { _ = curl.setPointer(handle, LibCurl.Option.customRequest, method) }
                    _ = curl.setCallback(handle, LibCurl.Option.writeFunction, ResponseCollector.bodyCallback)
                    _ = curl.setCallback(handle, LibCurl.Option.headerFunction, ResponseCollector.headerCallback)
                    return withExtendedLifetime(answer) {
                        let context = Unmanaged.passUnretained(answer).toOpaque()
                        _ = curl.setPointer(handle, LibCurl.Option.writeData, context)
                        _ = curl.setPointer(handle, LibCurl.Option.headerData, context)
                        return curl.easyPerform(handle)
                    }
                }
            }
        }
        // 23 (a write error): the body went past the limit and the transfer was stopped there.
        guard code == 0 || code == 23 && answer.overflowed else {
            if code == 7, let exhausted = Self.descriptorsExhausted(curl: curl, handle: handle) { return .failure(exhausted) }
            return .failure(error(for: code))
        }
        var status = 0
        _ = curl.getLong(handle, LibCurl.Option.responseCode, &status)
        return .success(TransportResponse(status: status, headers: answer.fields, body: answer.body, isTruncated: answer.overflowed))
    }

    private func error(for code: Int32) -> URLError {
        let text = curl.errorText(code).map { String(cString: $0) } ?? "curl error \(code)"
        let kind: URLError.Code
        switch code {
        case 6: kind = .cannotFindHost
        case 7: kind = .cannotConnectToHost
        case 28: kind = .timedOut
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91: kind = .secureConnectionFailed
        default: kind = .networkConnectionLost
        }
        return URLError(kind, userInfo: [NSLocalizedDescriptionKey: "\(text) (curl \(code))"])
    }

    /// After "couldn't connect": whether the cause was this process running out of descriptors
    /// (libcurl reports a failed `socket()` as a failed connect, often without its errno), told
    /// by the connect's errno or by trying to take one descriptor now.
    private static func descriptorsExhausted(curl: LibCurl, handle: LibCurl.Handle) -> LocalResourcesExhausted? {
        var osError = 0
        _ = curl.getLong(handle, LibCurl.Option.osErrno, &osError)
        if osError == Int(EMFILE) || osError == Int(ENFILE) {
            return LocalResourcesExhausted(detail: String(cString: strerror(Int32(osError))))
        }
        guard osError == 0 else { return nil }
        let probe = fcntl(0, F_DUPFD_CLOEXEC, 0)
        guard probe < 0 else {
            close(probe)
            return nil
        }
        let reason = errno
        guard reason == EMFILE || reason == ENFILE else { return nil }
        return LocalResourcesExhausted(detail: String(cString: strerror(reason)))
    }

    private static func isSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }

    private static func milliseconds(_ timeout: TimeInterval) -> Int {
        guard timeout.isFinite, timeout > 0 else { return Int(Defaults.requestTimeoutSeconds * 1000) }
        return Int(min(timeout, 86_400) * 1000)
    }
}

/// What came back for one request: the final response's header fields (a `100 Continue`'s
/// are replaced) and up to `maxBodyBytes` of its body. A body that goes past the limit stops
/// the transfer there: nothing more is downloaded.
private final class ResponseCollector {
    private let maxBodyBytes: Int
    private(set) var fields: [String: String] = [:]
    private(set) var body = Data()
    /// The body went past `maxBodyBytes`.
    private(set) var overflowed = false

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    /// libcurl's write callback: the body's bytes, to the collector behind `context`.
    static let bodyCallback: LibCurl.WriteCallback = { data, size, count, context in
        let taken = receive(data, size, count, context) { $0.addBody($1) }
        // Fewer bytes than given makes libcurl stop the transfer with a write error.
        guard let context, Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue().overflowed else { return taken }
        return 0
    }

    /// libcurl's header callback: one header line, to the collector behind `context`.
    static let headerCallback: LibCurl.WriteCallback = { data, size, count, context in
        receive(data, size, count, context) { $0.addHeaderLine($1) }
    }

    /// Hands libcurl's `size × count` bytes to the collector behind `context`; returns the
    /// count libcurl expects back (all taken).
    private static func receive(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?,
        _ take: (ResponseCollector, UnsafeRawBufferPointer) -> Void
    ) -> Int {
        let length = size &* count
        if let data, let context {
            take(Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue(), UnsafeRawBufferPointer(start: data, count: length))
        }
        return length
    }

    func addBody(_ bytes: UnsafeRawBufferPointer) {
        let room = maxBodyBytes - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
        if bytes.count > room { overflowed = true }
    }

    func addHeaderLine(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            fields = [:]
            body = Data()
            overflowed = false
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if !name.isEmpty { fields[name] = value }
    }
}
#endif
