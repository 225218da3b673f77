import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// A format still writing its request when its instance shuts down: the shutdown returns within
/// its timeout, the request the format hands over afterwards never leaves, and the next instance
/// on the same storage sends the batch — once, under its id.
@Suite struct StuckFormatShutdownTests {
    /// Records the requests sent through it, answers each 200, and says when it is invalidated
    /// (after everything its destination's format queue held).
    final class RecordingTransport: InvalidatableHTTPTransport, Sendable {
        let sent = Locked<[TransportRequest]>([])
        let invalidated = Locked(false)

        func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
            sent.withLock { $0.append(request) }
            DispatchQueue.global(qos: .utility).async { completion(.success(TransportResponse(status: 200, headers: [:], body: Data()))) }
        }

        func invalidate() { invalidated.withLock { $0 = true } }

        /// The batch ids of the requests to the destination's own path.
        var ownBatches: [String] { sent.current.filter { $0.url.path.hasSuffix("own/batch") }.compactMap { $0.headers["X-Batch-Id"] } }
    }

    @Test func aRequestWrittenAfterTheShutdownNeverLeaves() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let host = URL(string: "http://127.0.0.1:9")!
        var small = DurableDestinationOptions()
        small.maxBatchEvents = 5
        let gate = FormatGate()
        let stuck = DurableDestination(key: "Own", format: GatedFormat(inner: OwnFormat(host: host), gate: gate, inVerdict: false), options: small)
        let first = RecordingTransport()
        stuck.transport = first
        let analytics = instanceBesideTheBuiltIn(stuck, host: host, directory: directory.url, writeKey: "stuck-format")
        for index in 0..<5 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        #expect(await eventually { gate.entered.current }, "the format was never asked for a request")
        let finished = await analytics.shutdown(timeout: 1)
        gate.open()
        #expect(await eventually { first.invalidated.current }, "the destination's transport was never let go")
        #expect(!finished, "the shutdown waited for a format that had not returned")
        #expect(first.ownBatches.isEmpty, "a request written after the shutdown left: \(first.ownBatches)")

        let next = DurableDestination(key: "Own", format: OwnFormat(host: host), options: small)
        let second = RecordingTransport()
        next.transport = second
        let successor = instanceBesideTheBuiltIn(next, host: host, directory: directory.url, writeKey: "stuck-format")
        let delivered = await eventually {
            await successor.flushAndWait()
            return await successor.getDebugInfo().destinations["Own"]?.sent == 5
        }
        await successor.shutdown()
        #expect(delivered)
        #expect(second.ownBatches.count == 1, "\(second.ownBatches)")
    }
}
