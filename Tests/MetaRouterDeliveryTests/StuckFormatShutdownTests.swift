import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter
@testable import MetaRouterDelivery

/// Records the requests sent through it, answers each 200 (or, told not to, never answers),
/// and says when it is invalidated (after everything its destination's format queue held).
final class RecordingTransport: InvalidatableHTTPTransport, Sendable {
    let sent = Locked<[TransportRequest]>([])
    let invalidated = Locked(false)
    private let answers: Bool

    init(answers: Bool = true) { self.answers = answers }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        sent.withLock { $0.append(request) }
        guard answers else { return }
        DispatchQueue.global(qos: .utility).async { completion(.success(TransportResponse(status: 200, headers: [:], body: Data()))) }
    }

    func invalidate() { invalidated.withLock { $0 = true } }

    /// The `n` property of every event sent, in either destination's body (`{"batch": […]}`).
    var sentNumbers: [Int] {
        sent.current.flatMap { request -> [Int] in
            let batch = (try? JSONParser.parse(request.body))?["batch"]?.arrayValue ?? []
            return batch.compactMap(\.number)
        }
    }

    /// The batch ids of the requests to the destination's own path.
    var ownBatches: [String] { sent.current.filter { $0.url.path.hasSuffix("own/batch") }.compactMap { $0.headers["X-Batch-Id"] } }
}

/// A format still writing its request — or its request still being compressed — when its
/// instance shuts down: the shutdown returns within its timeout, the request never leaves
/// afterwards, and the next instance on the same storage sends the batch, once, under its id.
@Suite struct StuckFormatShutdownTests {
    private let host = URL(string: "http://127.0.0.1:9")!

    private func options(gzip: Bool = false) -> DurableDestinationOptions {
        var options = DurableDestinationOptions()
        options.maxBatchEvents = 5
        options.gzip = gzip
        return options
    }

    @Test func aRequestWrittenAfterTheShutdownNeverLeaves() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gate = FormatGate()
        let stuck = DurableDestination(key: "Own", format: GatedFormat(inner: OwnFormat(host: host), gate: gate, inVerdict: false), options: options())
        let first = RecordingTransport()
        stuck.transport = first
        let analytics = instanceBesideTheBuiltIn(stuck, host: host, directory: directory.url, writeKey: "stuck-format")
        let beforeTheBatch = ProcessInfo.processInfo.systemUptime
        for index in 0..<5 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        #expect(await eventually { gate.entered.current }, "the format was never asked for a request")
        let finished = await analytics.shutdown(timeout: 1)
        gate.open()
        await expectNothingSent(through: first, finished: finished, since: beforeTheBatch)
        try await expectTheSuccessorSendsTheBatchOnce(directory: directory.url, writeKey: "stuck-format")
    }

    /// With gzip on, the format has written its request before the shutdown, but the body is
    /// still being compressed (the compression queue is held) when the shutdown returns.
    @Test func aRequestStillCompressingAtTheShutdownNeverLeaves() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let written = FormatGate(), compressing = FormatGate()
        written.open()
        let stuck = DurableDestination(key: "Own", format: GatedFormat(inner: OwnFormat(host: host), gate: written, inVerdict: false), options: options(gzip: true))
        let first = RecordingTransport()
        stuck.transport = first
        let analytics = instanceBesideTheBuiltIn(stuck, host: host, directory: directory.url, writeKey: "stuck-gzip")
        #expect(await eventually { stuck.uploader != nil })
        let uploader = try #require(stuck.uploader)
        try #require(uploader.compression).afterPending { compressing.pass() }
        let beforeTheBatch = ProcessInfo.processInfo.systemUptime
        for index in 0..<5 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        #expect(await eventually { written.entered.current }, "the format was never asked for a request")
        try #require(uploader.formatQueue).sync {}
        let finished = await analytics.shutdown(timeout: 1)
        compressing.open()
        await expectNothingSent(through: first, finished: finished, since: beforeTheBatch)
        try await expectTheSuccessorSendsTheBatchOnce(directory: directory.url, writeKey: "stuck-gzip")
    }

    /// The shutdown passes its deadline while another plugin holds the executor, with calls
    /// waiting behind it: nothing of either destination reaches its transport after the
    /// shutdown returned, although the executor reaches the destinations' closing only later;
    /// the next instance sends what is left, each batch once.
    @Test(arguments: [false, true]) func nothingLeavesAfterAShutdownThatPassedItsDeadlineOnABusyExecutor(gzip: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let written = FormatGate(), blocker = BlockingPlugin()
        let stuck = DurableDestination(key: "Own", format: GatedFormat(inner: OwnFormat(host: host), gate: written, inVerdict: false), options: options(gzip: gzip))
        let own = RecordingTransport(), builtIn = RecordingTransport()
        stuck.transport = own
        let writeKey = "busy-at-shutdown-\(gzip)"
        let analytics = instanceBesideTheBuiltIn(stuck, host: host, directory: directory.url, writeKey: writeKey, transport: builtIn)
        analytics.add(plugin: blocker)
        for index in 0..<5 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        #expect(await eventually { written.entered.current }, "the format was never asked for a request")
        analytics.track("Block")
        #expect(await eventually { blocker.gate.entered.current }, "the executor was never held")
        for index in 5..<10 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        let finished = await analytics.shutdown(timeout: 0.3)
        let sentByBuiltIn = builtIn.sent.current.count
        written.open()
        blocker.gate.open()
        #expect(await eventually { own.invalidated.current && builtIn.invalidated.current }, "a transport was never let go")
        #expect(!finished)
        #expect(own.ownBatches.isEmpty, "the destination sent after the shutdown returned: \(own.ownBatches)")
        #expect(builtIn.sent.current.count == sentByBuiltIn, "the built-in destination sent after the shutdown returned")

        let next = DurableDestination(key: "Own", format: OwnFormat(host: host), options: options())
        let second = RecordingTransport()
        next.transport = second
        let successor = instanceBesideTheBuiltIn(next, host: host, directory: directory.url, writeKey: writeKey, transport: RecordingTransport())
        let delivered = await eventually {
            await successor.flushAndWait()
            let info = await successor.getDebugInfo()
            return info.destinations["Own"]?.sent == 11 && info.queueLength == 0
        }
        await successor.shutdown()
        #expect(delivered)
        #expect(Set(second.ownBatches).count == second.ownBatches.count, "\(second.ownBatches)")
    }

    /// Once the held work is let go: the shutdown, which returned `finished`, did not wait for
    /// it, and nothing of the destination reached `transport` before it was let go.
    ///
    /// The shutdown may return `true` only when the watchdog had given up on the held request
    /// first (a network error, the batch kept for a retry): on a machine busy enough that the
    /// test reached the shutdown more than the watchdog's limit after `start`, the uptime
    /// before the batch was queued.
    private func expectNothingSent(through transport: RecordingTransport, finished: Bool, since start: TimeInterval) async {
        let watchdogCouldGiveUp = ProcessInfo.processInfo.systemUptime - start >= RequestWatchdog.limit(forRequestTimeout: Defaults.requestTimeoutSeconds)
        #expect(await eventually { transport.invalidated.current }, "the destination's transport was never let go")
        #expect(!finished || watchdogCouldGiveUp, "the shutdown waited for a request that had not left")
        #expect(transport.ownBatches.isEmpty, "a request left after the shutdown: \(transport.ownBatches)")
    }

    private func expectTheSuccessorSendsTheBatchOnce(directory: URL, writeKey: String) async throws {
        let next = DurableDestination(key: "Own", format: OwnFormat(host: host), options: options())
        let second = RecordingTransport()
        next.transport = second
        let successor = instanceBesideTheBuiltIn(next, host: host, directory: directory, writeKey: writeKey)
        let delivered = await eventually {
            await successor.flushAndWait()
            return await successor.getDebugInfo().destinations["Own"]?.sent == 5
        }
        await successor.shutdown()
        #expect(delivered)
        #expect(second.ownBatches.count == 1, "\(second.ownBatches)")
    }
}

/// Holds the executor inside `execute` on an event named `Block` until its gate opens.
final class BlockingPlugin: Plugin, Sendable {
    let type = PluginType.enrichment
    let gate = FormatGate()

    func execute(event: consuming Event) -> Event? {
        if event.event == "Block" { gate.pass() }
        return event
    }
}
