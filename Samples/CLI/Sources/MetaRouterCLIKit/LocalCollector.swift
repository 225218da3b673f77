import Foundation
import Hummingbird
import Logging
import MetaRouter
import NIOConcurrencyHelpers
import NIOCore

/// One batch the local collector received.
public struct ReceivedBatch: Sendable {
    /// When it arrived.
    public let receivedAt: Date
    /// The request path.
    public let path: String
    /// The `Idempotency-Key` header.
    public let idempotencyKey: String?
    /// The events (the body's `batch` array).
    public let events: [JSON]
    /// The whole body, when it was JSON.
    public let body: JSON?
    /// What the wire validator found wrong.
    public let problems: [String]
    /// The status the collector answered with.
    public let status: Int
}

/// How the collector answers ingestion requests.
public struct CollectorBehaviour: Sendable {
    /// The status to answer with (200 unless told otherwise).
    public var status = 200
    /// A `Retry-After` value to send, in seconds.
    public var retryAfterSeconds: Int?
    /// Accept any path (for other destinations' formats), not only `…/v1/batch`.
    public var acceptAnyPath = false

    /// Answers 200.
    public init(status: Int = 200, retryAfterSeconds: Int? = nil, acceptAnyPath: Bool = false) {
        self.status = status
        self.retryAfterSeconds = retryAfterSeconds
        self.acceptAnyPath = acceptAnyPath
    }
}

/// An ingestion endpoint on 127.0.0.1 (Hummingbird): accepts `POST …/v1/batch`, validates each
/// batch against the wire format, records it and hands it to `onBatch`.
public final class LocalCollector: Sendable {
    private let batches = NIOLockedValueBox<[ReceivedBatch]>([])
    private let server = LoopbackServer()
    private let behaviour: CollectorBehaviour
    private let onBatch: @Sendable (ReceivedBatch) -> Void

    /// A collector answering per `behaviour`.
    public init(behaviour: CollectorBehaviour = CollectorBehaviour(), onBatch: @escaping @Sendable (ReceivedBatch) -> Void = { _ in }) {
        self.behaviour = behaviour
        self.onBatch = onBatch
    }

    /// Every batch so far.
    public var received: [ReceivedBatch] { batches.withLockedValue { $0 } }

    /// Every accepted event so far, in arrival order.
    public var acceptedEvents: [JSON] {
        batches.withLockedValue { $0 }.filter { (200..<300).contains($0.status) }.flatMap(\.events)
    }

    /// Starts listening on 127.0.0.1 (`port` 0 picks a free one) and returns the base URL.
    public func start(port: Int = 0) async throws -> URL {
        let router = Router()
        router.post("**") { [self] request, _ -> Response in
            var request = request
            let buffer = try await request.collectBody(upTo: 50_000_000)
            var body = Array(buffer.readableBytesView)
            if request.headers[.contentEncoding]?.lowercased() == "gzip" {
                guard let inflated = Gunzip.decompress(body) else { return Response(status: .badRequest) }
                body = inflated
            }
            return record(path: request.uri.path, idempotencyKey: request.headers[.init("Idempotency-Key")!], body: body)
        }
        let port = try await server.start(router, name: "metarouter-collector", port: port)
        return URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Stops listening.
    public func stop() async {
        await server.stop()
    }

    private func record(path: String, idempotencyKey: String?, body: [UInt8]) -> Response {
        let isBatch = path.hasSuffix("/v1/batch")
        let problems = isBatch ? WireValidator.problems(inBody: body) : behaviour.acceptAnyPath ? [] : ["unexpected path \(path)"]
        let parsed = try? JSONText.parse(body)
        let status = isBatch || behaviour.acceptAnyPath ? behaviour.status : 404
        let batch = ReceivedBatch(
            receivedAt: Date(), path: path, idempotencyKey: idempotencyKey, events: parsed?["batch"]?.arrayValue ?? [],
            body: parsed, problems: problems, status: status)
        batches.withLockedValue { $0.append(batch) }
        onBatch(batch)
        var headers = HTTPFields()
        if let retryAfter = behaviour.retryAfterSeconds { headers[.retryAfter] = String(retryAfter) }
        return Response(status: .init(code: status), headers: headers)
    }

    /// Why the collector could not start.
    public enum CollectorError: Error { case couldNotBind }
}
