import Foundation
import Hummingbird
import LoadCollectorKit
import Logging
import NIOCore

// LoadCollector [--fail-until SECONDS]
// The load test's counting collector (`LoadTest/loadtest.py`): listens on 127.0.0.1 (an
// ephemeral port), prints "PORT <n>", accepts every POST as a batch and remembers each event's
// messageId, so the run can tell delivered, unique and duplicate events apart; answers 503 for
// the first SECONDS (an outage); `GET /_stats` returns the counts as JSON; exits when its
// standard input closes. It does what `LoadTest/collector.py` does for this test (which still
// serves the delivery benchmark's order check) at a fraction of its CPU, since it shares two
// cores with the server it measures.

/// The counts, shared by the handlers.
final class SharedCounts: @unchecked Sendable {  // `counts` is only touched under `lock`
    private let lock = NSLock()
    private var counts = DeliveryCounts()

    func update<T>(_ body: (inout DeliveryCounts) -> T) -> T { lock.withLock { body(&counts) } }
}

let failUntil = Double(CommandLine.arguments.drop { $0 != "--fail-until" }.dropFirst().first ?? "") ?? 0
let started = DispatchTime.now().uptimeNanoseconds
let counts = SharedCounts()
func secondsSinceStart() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

let router = Router()
router.get("/_stats") { _, _ -> Response in
    let json = counts.update { $0.json }
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
}
router.post("**") { request, _ -> Response in
    counts.update { $0.received() }
    guard secondsSinceStart() >= failUntil else {
        counts.update { $0.refuse() }
        return Response(status: .serviceUnavailable)
    }
    let body = try await request.body.collect(upTo: 64 << 20)
    let ids = body.withUnsafeReadableBytes(MessageIDScan.scannedIDs) ?? MessageIDScan.parsedIDs(Data(buffer: body))
    guard let ids else { return Response(status: .badRequest) }
    let now = secondsSinceStart()
    counts.update { $0.accept(ids, at: now) }
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
}

// The load test closes standard input to stop the collector.
Thread.detachNewThread {
    while !FileHandle.standardInput.availableData.isEmpty {}
    exit(0)
}

var logger = Logger(label: "load-collector")
logger.logLevel = .warning
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in
        FileHandle.standardOutput.write(Data("PORT \(channel.localAddress?.port ?? 0)\n".utf8))
    }, logger: logger)
try await app.runService()
