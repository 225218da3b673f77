import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// A shutdown that passes its deadline stops the instance's sending as it returns, for every
/// destination its executor runs — those it has yet to build included — and the stop belongs to
/// that instance alone: a destination object used again by the next instance sends.
@Suite struct ShutdownDeadlineTests {
    private let host = URL(string: "http://127.0.0.1:9")!

    private func options(_ writeKey: String, _ directory: URL, _ transport: RecordingTransport, plugins: @escaping @Sendable () -> [any Plugin] = { [] }) -> InitOptions {
        var options = InitOptions(writeKey: writeKey, ingestionHost: host.absoluteString, flushIntervalSeconds: 1)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.transport = transport
        options.plugins = plugins
        return options
    }

    /// The first instance's executor is held by a plugin; the next for its key waits behind it,
    /// its destinations not built yet, when its own shutdown passes its deadline. Neither sends
    /// after its shutdown returned; a third instance delivers every event.
    @Test func aSuccessorShutDownBeforeItsDestinationsWereBuiltSendsNothingAfter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writeKey = "held-successor"
        let first = RecordingTransport(), second = RecordingTransport(), third = RecordingTransport()
        let blocker = BlockingPlugin()
        let held = MetaRouter.Analytics.instance(for: options(writeKey, directory.url, first, plugins: { [blocker] }))
        held.track("Block")
        #expect(await eventually { blocker.gate.entered.current }, "the executor was never held")
        for index in 0..<10 { held.track("Step", properties: ["n": index]) }
        let heldFinished = await held.shutdown(timeout: 0.3)
        let sentByFirst = first.sent.current.count
        let successor = MetaRouter.Analytics.instance(for: options(writeKey, directory.url, second))
        for index in 10..<30 { successor.track("Step", properties: ["n": index]) }
        successor.flush()
        let successorFinished = await successor.shutdown(timeout: 0.3)
        let sentBySecond = second.sent.current.count
        blocker.gate.open()
        #expect(await eventually { first.invalidated.current && second.invalidated.current }, "a transport was never let go")
        #expect(!heldFinished && !successorFinished)
        #expect(first.sent.current.count == sentByFirst, "the first instance sent after its shutdown returned")
        #expect(second.sent.current.count == sentBySecond, "the successor sent after its shutdown returned")

        let last = MetaRouter.Analytics.instance(for: options(writeKey, directory.url, third))
        let drained = await eventually {
            await last.flushAndWait()
            return await last.getDebugInfo().queueLength == 0
        }
        await last.shutdown()
        #expect(drained)
        let numbers = [first, second, third].flatMap(\.sentNumbers)
        #expect(Set(numbers) == Set(0..<30), "missing: \(Set(0..<30).subtracting(numbers).sorted())")
    }

    /// A destination object given to the next instance after its first instance shut down (in
    /// time, or past its deadline) sends there.
    @Test(arguments: [10.0, 0.0]) func aDestinationUsedAgainByTheNextInstanceSends(firstTimeout: Double) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var small = DurableDestinationOptions()
        small.maxBatchEvents = 5
        let own = DurableDestination(key: "Own", format: OwnFormat(host: host), options: small)
        let transport = RecordingTransport()
        own.transport = transport
        let writeKey = "reused-destination-\(firstTimeout)"
        let first = instanceBesideTheBuiltIn(own, host: host, directory: directory.url, writeKey: writeKey, transport: RecordingTransport())
        for index in 0..<5 { first.track("Step", properties: ["n": index]) }
        await first.shutdown(timeout: firstTimeout)
        let second = instanceBesideTheBuiltIn(own, host: host, directory: directory.url, writeKey: writeKey, transport: RecordingTransport())
        for index in 5..<10 { second.track("Step", properties: ["n": index]) }
        let delivered = await eventually {
            await second.flushAndWait()
            return Set(transport.sentNumbers) == Set(0..<10)
        }
        await second.shutdown()
        #expect(delivered, "sent: \(transport.sentNumbers)")
    }
}
