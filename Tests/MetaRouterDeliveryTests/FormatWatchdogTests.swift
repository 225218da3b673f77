import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// The watchdog times a format's request from when it reached the transport: a format that
/// takes almost the whole limit to write it does not get the request given up (and its batch
/// sent a second time beside it) a moment after it left.
@Suite struct FormatWatchdogTests {
    private let host = URL(string: "http://127.0.0.1:9")!

    @Test func aRequestWrittenJustBeforeTheLimitIsTimedFromWhenItLeft() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let gate = FormatGate()
        var options = DurableDestinationOptions()
        options.maxBatchEvents = 5
        let own = DurableDestination(key: "Own", format: GatedFormat(inner: OwnFormat(host: host), gate: gate, inVerdict: false), options: options)
        let transport = RecordingTransport(answers: false)
        own.transport = transport
        let analytics = instanceBesideTheBuiltIn(own, host: host, directory: directory.url, writeKey: "format-watchdog", clock: clock)
        let limit = Defaults.requestTimeoutSeconds * 2 + 5
        for index in 0..<5 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        #expect(await eventually { gate.entered.current }, "the format was never asked for a request")

        // The format returns a second before the limit; the request is never answered.
        clock.advance(by: limit - 1)
        gate.open()
        #expect(await eventually { transport.ownBatches.count == 1 })
        // The check at the limit finds the request a second old; well past any retry delay,
        // nothing has left beside it.
        for _ in 0..<10 {
            clock.advance(by: 1)
            await analytics.engine.settle()
        }
        #expect(transport.ownBatches.count == 1, "the batch left again while its request was in flight: \(transport.ownBatches)")

        // Past the limit after it left, it is given up and its batch retried under the same id.
        clock.advance(by: limit)
        await analytics.engine.settle()
        var waited = 0
        while transport.ownBatches.count < 2, waited < 120 {
            clock.advance(by: 1)
            await analytics.engine.settle()
            waited += 1
        }
        let sent = transport.ownBatches
        await analytics.shutdown(timeout: 1)
        #expect(sent.count == 2 && Set(sent).count == 1, "\(sent)")
    }
}
