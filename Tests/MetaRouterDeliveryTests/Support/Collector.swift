import Foundation
import MetaRouterCore
import MetaRouterTesting

@testable import MetaRouterDelivery

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request the collector fixture recorded.
struct RecordedRequest: Sendable {
    let path: String
    let headers: [String: String]
    let body: JSON?
    let status: Int
    let dropped: Bool
    /// Other event requests the collector was still answering when this one arrived.
    var overlapping = 0
    /// The body's bytes on the wire, and once decoded (they differ when it was gzip-compressed).
    var wireLength = 0
    var length = 0
    /// The client's TCP port: requests on one kept connection share it.
    var clientPort = 0

    /// The batch's events, when the body was `{"batch": [...]}`.
    var events: [JSON] { body?["batch"]?.arrayValue ?? [] }
}

/// One scripted answer of the collector.
struct ScriptedResponse: Sendable {
    var status = 200
    var headers: [String: String] = [:]
    var delay: Double = 0
    var drop = false
    /// The answer's body (a rule set, for a rule-server test); `{}` when nil.
    var body: String?
    /// Newlines sent after `body` (a hostile, oversized answer).
    var padding = 0

    var json: JSON {
        var object: [String: JSON] = ["status": .int(Int64(status)), "headers": .object(headers.mapValues(JSON.string)), "delay": .double(delay), "drop": .bool(drop)]
        if let body { object["body"] = .string(body) }
        if padding > 0 { object["padding"] = .int(Int64(padding)) }
        return .object(object)
    }
}

/// Starts `Fixtures/collector.py` on 127.0.0.1 with an ephemeral port and talks to it.
/// The process stops when this object is stopped or the test process exits (its stdin closes).
final class Collector: @unchecked Sendable {  // immutable after init; Process and Pipe are only used to stop it
    let port: Int
    private let process: Process
    private let input: Pipe
    #if os(Linux)
    /// Over a connection pool of its own: a control connection in the process's pool would be
    /// the one the SDK's first request reuses, and a reused connection that the collector
    /// drops is re-sent by libcurl, not reported.
    private let control: any HTTPTransport = CurlTransport(
        pool: CurlConnectionPool(curl: LibCurl.shared!, maxIdle: 1), maxResponseBytes: Int(Int32.max))
    #else
    private let control: any HTTPTransport = URLSessionTransport(timeout: 30, maxResponseBytes: Int(Int32.max))
    #endif

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts a collector. The process is started on the calling thread (a process started
    /// from a thread of its own was, now and then, never seen to exit by Foundation); only the
    /// wait for its port line — seconds on a busy machine — runs off the cooperative pool
    /// (``offThePool(_:)``).
    static func start() async throws -> Collector {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/collector.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        let line = try await offThePool {
            var line = Data()
            while let byte = try reader.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
            return line
        }
        guard let text = String(data: line, encoding: .utf8), text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw CollectorError.noPort(String(decoding: line, as: UTF8.self))
        }
        return Collector(port: port, process: process, input: input)
    }

    private init(port: Int, process: Process, input: Pipe) {
        self.port = port
        self.process = process
        self.input = input
    }

    enum CollectorError: Error { case noPort(String), badReply }

    func stop() {
        try? input.fileHandleForWriting.close()
        // SIGKILL, not SIGTERM: a child started from one of dispatch's threads inherits their
        // blocked SIGTERM, and the end of its stdin may not come while another child started
        // at the same moment holds a copy of the pipe. Either left a collector running and
        // `waitUntilExit` spinning for ever.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Answers the next requests with `responses`, then with `fallback`; or fails a share of
    /// requests at random.
    func script(_ responses: [ScriptedResponse] = [], fallback: ScriptedResponse = ScriptedResponse(),
                failRate: Double = 0, failStatus: Int = 503, seed: Int = 0) async throws {
        let body: JSON = [
            "responses": .array(responses.map(\.json)), "default": fallback.json,
            "fail_rate": .double(failRate), "fail_status": .int(Int64(failStatus)), "seed": .int(Int64(seed)),
        ]
        _ = try await call("POST", "/_control/script", body: Data(JSONWriter.bytes(body)))
    }

    /// Sets the entitlement API's table (user → keys) and its faults: `status` answers every
    /// entitlement request, `purchaseStatus` every purchase, `drop` closes the connection;
    /// `delays` holds back each answer for a user by a random time up to that many seconds.
    func entitlements(
        _ users: [String: [String]], status: Int? = nil, purchaseStatus: Int? = nil, drop: Bool = false, delays: [String: Double] = [:]
    ) async throws {
        let body: JSON = [
            "users": .object(users.mapValues { .array($0.map(JSON.string)) }),
            "status": status.map { .int(Int64($0)) } ?? .null, "purchase_status": purchaseStatus.map { .int(Int64($0)) } ?? .null,
            "drop": .bool(drop), "delays": .object(delays.mapValues(JSON.double)),
        ]
        _ = try await call("POST", "/_control/entitlements", body: Data(JSONWriter.bytes(body)))
    }

    /// Every ingestion request so far.
    func requests() async throws -> [RecordedRequest] {
        let data = try await call("GET", "/_control/requests", body: nil)
        guard let list = try JSONParser.parse(data)["requests"]?.arrayValue else { throw CollectorError.badReply }
        return list.map { item in
            RecordedRequest(
                path: item["path"]?.stringValue ?? "",
                headers: item["headers"]?.objectValue?.compactMapValues(\.stringValue) ?? [:],
                body: item["body"].flatMap { $0.isNull ? nil : $0 },
                status: Int(item["status"]?.int64Value ?? 0),
                dropped: item["dropped"]?.boolValue ?? false,
                overlapping: Int(item["overlapping"]?.int64Value ?? 0),
                wireLength: Int(item["wire_length"]?.int64Value ?? 0), length: Int(item["length"]?.int64Value ?? 0),
                clientPort: Int(item["client_port"]?.int64Value ?? 0))
        }
    }

    /// Bytes of padding the collector managed to send before clients closed their connections.
    func paddingSent() async throws -> Int {
        let data = try await call("GET", "/_control/requests", body: nil)
        return Int(try JSONParser.parse(data)["padding_sent"]?.int64Value ?? 0)
    }

    /// The events of every request answered with 2xx, in arrival order.
    func acceptedEvents() async throws -> [JSON] {
        try await requests().filter { (200..<300).contains($0.status) && !$0.dropped }.flatMap(\.events)
    }

    /// Polls until `condition` holds on the recorded requests or `timeout` passes. The default
    /// is long because it is only reached by a failing test, and a loaded machine is slow.
    @discardableResult
    func waitFor(timeout: TimeInterval = 60, _ condition: @Sendable ([RecordedRequest]) -> Bool) async throws -> [RecordedRequest] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let current = try await requests()
            if condition(current) || Date() > deadline { return current }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    private func call(_ method: String, _ path: String, body: Data?) async throws -> Data {
        // The SDK's own default transport: on Linux, FoundationNetworking's URLSession stalls
        // now and then under load (see `CurlTransport`), which would make the tests flaky.
        let request = TransportRequest(url: baseURL.appendingPathComponent(path), method: method, body: body ?? Data(), timeout: 30)
        return try await withCheckedThrowingContinuation { continuation in
            control.send(request) { outcome in continuation.resume(with: outcome.map(\.body)) }
        }
    }
}
