import Foundation
import Hummingbird
import Logging
import MetaRouter
import NIOCore
import Synchronization

/// A Hummingbird server on 127.0.0.1 for the integration tests: an ingestion endpoint that
/// counts the events it accepts, and routes that answer with a status, a large body, a delay or
/// a dropped connection.
final class TestServer: Sendable {
    private let task = Mutex<Task<Void, any Error>?>(nil)
    private let received = Mutex<[JSON]>([])
    private let failure = Mutex<Int?>(nil)
    let port: Int

    /// The status the ingestion endpoint answers with instead of accepting (`nil`: it accepts).
    var failingWith: Int? {
        get { failure.withLock { $0 } }
        set { failure.withLock { $0 = newValue } }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every event accepted, in arrival order.
    var events: [JSON] { received.withLock { $0 } }

    /// The `event` (or type) of every event accepted, in arrival order.
    var accepted: [String] { events.map { $0["event"]?.stringValue ?? $0["type"]?.stringValue ?? "" } }

    private init(port: Int) { self.port = port }

    static func start() async throws -> TestServer {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let holder = Mutex<TestServer?>(nil)
        let router = Router()
        router.post("/v1/batch") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 50_000_000)
            let batch = (try? JSONDecoder().decode(JSON.self, from: Data(body.readableBytesView)))?["batch"]?.arrayValue ?? []
            if let code = holder.withLock({ $0 })?.failingWith { return Response(status: .init(code: code)) }
            holder.withLock { $0 }?.received.withLock { $0 += batch }
            return Response(status: .ok)
        }
        router.post("/status/{code}") { request, context -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let code = Int(context.parameters.get("code") ?? "200") ?? 200
            var headers = HTTPFields()
            headers[.init("X-Echo-Header")!] = request.headers[.init("X-Test")!] ?? ""
            headers[.init("X-Echo-Length")!] = String(body.readableBytes)
            return Response(status: .init(code: code), headers: headers, body: .init(byteBuffer: ByteBuffer(string: "answer \(code)")))
        }
        router.get("/big") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "x"), count: 3 << 20))) }
        router.get("/slow") { _, _ -> Response in
            try await Task.sleep(nanoseconds: 3_000_000_000)
            return Response(status: .ok)
        }
        router.get("/drop") { _, _ in Response(status: .ok, body: ResponseBody(contentLength: 64) { _ in throw CancellationError() }) }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: Logger(label: "test-server", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await app.run() }
        var ports = stream.makeAsyncIterator()
        let server = TestServer(port: await ports.next() ?? 0)
        holder.withLock { $0 = server }
        server.task.withLock { $0 = running }
        return server
    }

    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        _ = try? await running?.value
    }
}

/// A temporary directory of the test's own, removed with everything in it by `remove()`.
struct TestDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-integrations-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Polls (60 s at most: only a failing test waits that long) until `condition` holds.
func eventually(_ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return false
}
