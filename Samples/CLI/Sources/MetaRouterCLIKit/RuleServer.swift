import Foundation
import Hummingbird
import Logging
import MetaRouter
import NIOConcurrencyHelpers
import NIOCore

/// Serves one rule set over HTTP on 127.0.0.1 with an `ETag` (a hash of the text) and
/// `304 Not Modified` for a matching `If-None-Match`, so a developer can change rules live: the
/// text comes from `source` on every request (a file re-read, or a value the demo replaces).
public final class RuleServer: Sendable {
    private let source: @Sendable () -> String?
    private let server = LoopbackServer()
    private let counts = NIOLockedValueBox((served: 0, notModified: 0))

    /// Serves whatever `source` returns (404 while it returns `nil`).
    public init(source: @escaping @Sendable () -> String?) {
        self.source = source
    }

    /// Serves the file at `path`, re-read on every request.
    public convenience init(file path: String) {
        self.init { try? String(contentsOfFile: path, encoding: .utf8) }
    }

    /// Requests answered with the text, and with 304.
    public var requests: (served: Int, notModified: Int) { counts.withLockedValue { $0 } }

    /// The `ETag` of `text`.
    public static func etag(of text: String) -> String {
        "\"" + fingerprint(Array(text.utf8)) + "\""
    }

    /// Starts listening on 127.0.0.1 (`port` 0 picks a free one); returns the rule set's URL.
    public func start(port: Int = 0) async throws -> URL {
        let router = Router()
        router.get("**") { [self] request, _ -> Response in
            guard let text = source() else { return Response(status: .notFound) }
            let tag = Self.etag(of: text)
            var headers = HTTPFields()
            headers[.eTag] = tag
            if request.headers[.ifNoneMatch] == tag {
                counts.withLockedValue { $0.notModified += 1 }
                return Response(status: .notModified, headers: headers)
            }
            counts.withLockedValue { $0.served += 1 }
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let bound = try await server.start(router, name: "metarouter-rules", port: port)
        return URL(string: "http://127.0.0.1:\(bound)/rules")!
    }

    /// Stops listening.
    public func stop() async {
        await server.stop()
    }

    /// An ETag only has to change when the text does: FNV-1a 64 over the bytes, forward and
    /// reversed.
    private static func fingerprint(_ bytes: [UInt8]) -> String {
        func fnv(_ bytes: some Sequence<UInt8>) -> UInt64 {
            bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
        return String(fnv(bytes), radix: 16) + String(fnv(bytes.reversed()), radix: 16)
    }
}
