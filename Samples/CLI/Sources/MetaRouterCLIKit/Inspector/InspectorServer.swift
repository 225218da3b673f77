import Foundation
import Hummingbird
import MetaRouter
import NIOCore

/// `metarouter inspect`: the local collector (the same wire handling and answers as `collect`,
/// gzip included) and a live page on 127.0.0.1 showing what arrives — the events, each batch's
/// headers, what is wrong with them, delivery figures — with buttons that make the next batches
/// fail. Every asset is served from this binary. What it takes in is bounded by its
/// ``InspectorLimits``.
public final class InspectorServer: Sendable {
    /// What the page and the API read.
    public let store: InspectorStore
    private let plan: TrackingPlan?
    private let rules: RuleSet?
    private let server: LoopbackServer
    private let access = InspectorAccess()
    private let intake: InspectorIntake

    /// This run's token: the page sends it with every request that changes something.
    public var token: String { access.token }

    /// The bytes of request bodies held now, across every connection.
    public var bytesInFlight: Int { intake.budget.reserved }

    /// The connections open now.
    public var openConnections: Int { server.cap.count }

    /// An inspector checking events against `plan` and showing what `rules` would do, taking in
    /// no more than `limits`.
    public init(
        plan: TrackingPlan? = nil, rules: RuleSet? = nil, capacity: Int = 5000, byteBudget: Int = InspectorStore.defaultByteBudget,
        limits: InspectorLimits = InspectorLimits()
    ) {
        store = InspectorStore(capacity: capacity, byteBudget: byteBudget)
        server = LoopbackServer(connections: limits.connections, idleTimeout: limits.idleTimeout)
        intake = InspectorIntake(limits: limits)
        self.plan = plan
        self.rules = rules
    }

    /// Starts listening on 127.0.0.1 (`port` 0 picks a free one); returns the base URL, which
    /// is both the page and the `ingestionHost`. The page and the API answer only this
    /// machine's own pages (``InspectorAccess``).
    public func start(port: Int = 0) async throws -> URL {
        let router = Router()
        let access = self.access
        let page = InspectorPage.html.replacingOccurrences(of: "{{token}}", with: access.token)
        router.get("/") { request, _ in access.refusal(page: request).map(InspectorAccess.forbidden) ?? Self.asset(page, type: "text/html; charset=utf-8") }
        router.get("/inspector.css") { request, _ in
            access.refusal(page: request).map(InspectorAccess.forbidden) ?? Self.asset(InspectorPage.css, type: "text/css; charset=utf-8")
        }
        router.get("/inspector.js") { request, _ in
            access.refusal(page: request).map(InspectorAccess.forbidden) ?? Self.asset(InspectorScript.source, type: "text/javascript; charset=utf-8")
        }
        router.get("/api/snapshot") { [store] request, _ in access.refusal(page: request).map(InspectorAccess.forbidden) ?? Self.json(store.snapshot) }
        router.get("/api/stream") { [store] request, _ -> Response in
            if let refused = access.refusal(page: request) { return InspectorAccess.forbidden(refused) }
            guard let stream = store.listen() else { return Self.json(["error": "too many pages are listening"], status: .serviceUnavailable) }
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                for await message in stream { try await writer.write(ByteBuffer(string: message)) }
                try await writer.finish(nil)
            })
        }
        router.post("/api/faults") { [store] request, _ -> Response in
            if let refused = access.refusal(change: request) { return InspectorAccess.forbidden(refused) }
            var request = request
            let body = try await request.collectBody(upTo: 4096)
            let json = try? JSONText.parse(Array(body.readableBytesView))
            guard let fault = json?["fault"]?.stringValue.flatMap(InspectorFault.init(rawValue:)) else {
                return Self.json(["error": "fault must be one of 500, 429, 413, drop"], status: .badRequest)
            }
            store.inject(fault, count: Int(json?["count"]?.int64Value ?? 1))
            return Self.json(store.faultsJSON)
        }
        router.post("/api/clear") { [store] request, _ -> Response in
            if let refused = access.refusal(change: request) { return InspectorAccess.forbidden(refused) }
            store.clear()
            return Self.json([:])
        }
        router.post("/api/filter") { [store] request, _ -> Response in
            if let refused = access.refusal(change: request) { return InspectorAccess.forbidden(refused) }
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            let text = (try? JSONText.parse(Array(body.readableBytesView)))?["condition"]?.stringValue ?? ""
            let compiled = EventAnalysis.condition(text)
            guard let test = compiled.test else { return Self.json(["error": .string(compiled.error ?? "does not compile")]) }
            let matches = store.events.filter { test($0["event"] ?? .null) }.compactMap { $0["seq"] }
            return Self.json(["matches": .array(matches)])
        }
        router.post("**") { [self] request, _ -> Response in
            if let refused = access.refusal(ingest: request) { return InspectorAccess.forbidden(refused) }
            var request = request
            let reservation = InspectorIntake.Reservation(budget: intake.budget)
            defer { reservation.release() }
            switch try await intake.read(&request, into: reservation) {
            case .success(let wire): return ingest(request, wire: wire, reservation: reservation)
            case .failure(let refusal): return refuse(request, refusal, wireBytes: Int(request.headers[.contentLength] ?? "") ?? 0)
            }
        }
        let bound = try await server.start(router, name: "metarouter-inspect", port: port)
        access.bind(port: bound)
        return URL(string: "http://127.0.0.1:\(bound)")!
    }

    /// Stops listening.
    public func stop() async {
        await server.stop()
    }

    /// What every batch record starts with.
    private func batchRecord(_ request: Request, wireBytes: Int) -> [String: JSON] {
        var batch: [String: JSON] = [
            "receivedAt": .string(ISO8601DateFormatter().string(from: Date())), "path": .string(request.uri.path),
            "gzip": .bool((try? InspectorIntake.contentCoding(request.headers[.contentEncoding]).get()) ?? false),
            "trace": .bool(request.headers[.init("Trace")!]?.lowercased() == "true"), "wireBytes": .int(Int64(wireBytes)),
        ]
        if let key = request.headers[.init("Idempotency-Key")!] { batch["idempotencyKey"] = .string(key) }
        return batch
    }

    /// Records a refused request (its reason as the problem) and answers it.
    private func refuse(_ request: Request, _ refusal: InspectorIntake.Refusal, wireBytes: Int) -> Response {
        var batch = batchRecord(request, wireBytes: wireBytes)
        batch["status"] = .int(Int64(refusal.status.code))
        batch["problems"] = [.string(refusal.reason)]
        store.record(batch: batch, events: [], accepted: false) { _ in EventAnalysis() }
        return refusal.response
    }

    private func ingest(_ request: Request, wire: Data, reservation: InspectorIntake.Reservation) -> Response {
        let path = request.uri.path
        let gzip: Bool
        switch InspectorIntake.contentCoding(request.headers[.contentEncoding]) {
        case .success(let isGzip): gzip = isGzip
        case .failure(let refusal): return refuse(request, refusal, wireBytes: wire.count)
        }
        var batch = batchRecord(request, wireBytes: wire.count)
        guard let endpoint = SegmentEndpoint(path: path) else {
            batch["status"] = 404
            batch["problems"] = .array([.string("unexpected path \(path) (the Segment HTTP API's: /v1/batch, /v1/b, /v1/track, …)")])
            store.record(batch: batch, events: [], accepted: false) { _ in EventAnalysis() }
            return Response(status: .notFound)
        }
        var body = wire
        if gzip {
            switch intake.inflate(wire, into: reservation) {
            case .success(let inflated): body = inflated
            case .failure(let refusal): return refuse(request, refusal, wireBytes: wire.count)
            }
        }
        let parsed = try? JSONText.parse(body)
        let events = endpoint.events(in: parsed)
        batch["bytes"] = .int(Int64(body.count))
        batch["events"] = .int(Int64(events.count))
        batch["problems"] = .array(endpoint.problems(in: parsed).map(JSON.string))
        let writeKey = parsed?["writeKey"]?.stringValue ?? events.first?["writeKey"]?.stringValue ?? SegmentEndpoint.basicAuthWriteKey(request.headers[.authorization])
        if let writeKey { batch["writeKey"] = .string(Self.mask(writeKey)) }
        let fault = store.takeFault()
        let status: HTTPResponse.Status
        switch fault {
        case .serverError?: status = .internalServerError
        case .tooManyRequests?: status = .tooManyRequests
        case .tooLarge?: status = .contentTooLarge
        case .drop?, nil: status = .ok
        }
        batch["status"] = fault == .drop ? "dropped" : .int(Int64(status.code))
        if let fault { batch["fault"] = .string(fault.rawValue) }
        store.record(batch: batch, events: events, accepted: fault == nil) { [plan, rules] in EventAnalysis.of($0, plan: plan, rules: rules) }
        if fault == .drop {
            // A length promised and never sent: the client sees the connection close mid-answer.
            return Response(status: .ok, body: ResponseBody(contentLength: 64) { _ in throw CancellationError() })
        }
        var headers = HTTPFields()
        if fault == .tooManyRequests { headers[.retryAfter] = "1" }
        headers[.contentType] = "application/json"
        // The Segment HTTP API answers `{"success": true}`; some SDKs read it.
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: status == .ok ? #"{"success":true}"# : "{}")))
    }

    /// The write key with all but its last 4 characters masked.
    static func mask(_ key: String) -> String {
        key.count > 4 ? String(repeating: "*", count: key.count - 4) + key.suffix(4) : String(repeating: "*", count: key.count)
    }

    private static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func json(_ value: JSON, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: JSONText.bytes(value))))
    }
}
