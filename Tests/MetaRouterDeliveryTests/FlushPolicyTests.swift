import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@Suite struct FlushPolicyTests {
    @Test func countPolicyFlushesAtTheThresholdOnce() async throws {
        let harness = try await DeliveryHarness { $0.upload.flushAt = 20 }
        defer { harness.stop() }
        harness.track(19)
        await harness.client.settle()
        // The policy decided on the executor, with the 19th event: no request was started.
        #expect(await harness.status().flushInFlight == false)
        #expect(try await harness.collector.requests().isEmpty)
        harness.track(1, from: 19)
        let requests = try await harness.collector.waitFor { $0.count >= 1 }
        #expect(requests.map(\.events.count) == [20])
    }

    @Test func aSteadyStreamFillsBatchesInsteadOfSendingWhatOneRoundTripGathered() async throws {
        let gate = GatedTransport()
        let harness = try await DeliveryHarness {
            $0.upload.flushAt = 10
            $0.upload.maxBatchSize = 10
            $0.transport = gate
        }
        defer { harness.stop() }
        harness.track(10)
        await harness.client.settle()
        #expect(await harness.status().flushInFlight)
        // Three arrive while the first batch is out; its answer does not send them alone.
        harness.track(3, from: 10)
        await harness.client.settle()
        gate.release()
        #expect(await eventually { harness.stats.sent >= 10 })
        await harness.client.settle()
        let afterAnswer = await harness.status()
        #expect(harness.stats.sent == 10)
        #expect(afterAnswer.flushInFlight == false && afterAnswer.queueLength == 3)
        harness.track(7, from: 13)
        let requests = try await harness.collector.waitFor { $0.count >= 2 }
        #expect(requests.map(\.events.count) == [10, 10])
        #expect(requests.flatMap(\.events).compactMap(\.number) == Array(0..<20))
    }

    @Test func aFlushSendsEverythingQueuedBelowTheThresholdBatchAfterBatch() async throws {
        let harness = try await DeliveryHarness { $0.upload.maxBatchSize = 2 }
        defer { harness.stop() }
        harness.track(5)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.map(\.events.count) == [2, 2, 1])
        #expect(harness.stats.sent == 5)
    }

    @Test func intervalPolicyFlushesOnTheClockWithoutARunLoop() async throws {
        let harness = try await DeliveryHarness { $0.upload.flushIntervalSeconds = 10 }
        defer { harness.stop() }
        harness.track(3)
        await harness.client.settle()
        harness.clock.advance(by: 9)
        await harness.client.settle()
        #expect(try await harness.collector.requests().isEmpty)
        harness.clock.advance(by: 1)
        let first = try await harness.collector.waitFor { $0.count == 1 }
        #expect(first.first?.events.count == 3)
        harness.track(2, from: 3)
        await harness.client.settle()
        harness.clock.advance(by: 10)
        let second = try await harness.collector.waitFor { $0.count == 2 }
        #expect(second.last?.events.compactMap(\.number) == [3, 4])
    }

    /// An idle instance has no flush timer: the first event after a flush arms it, it fires
    /// once, and with nothing left to send nothing is armed again.
    @Test func theIntervalTimerRunsOnlyWhileEventsWait() async throws {
        let harness = try await DeliveryHarness { $0.upload.flushIntervalSeconds = 10 }
        defer { harness.stop() }
        await harness.client.settle()
        #expect(!harness.clock.pendingDelays.contains(10), "a timer with nothing queued")
        harness.track(2)
        await harness.client.settle()
        #expect(harness.clock.pendingDelays.filter { $0 == 10 }.count == 1)
        harness.track(3, from: 2)
        await harness.client.settle()
        #expect(harness.clock.pendingDelays.filter { $0 == 10 }.count == 1, "one timer for however many events")
        harness.clock.advance(by: 10)
        let requests = try await harness.collector.waitFor { $0.flatMap(\.events).count == 5 }
        #expect(requests.flatMap(\.events).compactMap(\.number) == Array(0..<5))
        #expect(await eventually { await harness.status().flushInFlight == false })
        await harness.client.settle()
        #expect(!harness.clock.pendingDelays.contains(10), "the timer was armed again with nothing to send")
        harness.track(1, from: 5)
        await harness.client.settle()
        #expect(harness.clock.pendingDelays.filter { $0 == 10 }.count == 1)
    }

    @Test func shutdownStopsTheIntervalTimer() async throws {
        let harness = try await DeliveryHarness { $0.upload.flushIntervalSeconds = 10 }
        defer { harness.stop() }
        harness.track(1)
        await harness.client.shutdown()
        #expect(try await harness.collector.requests().count == 1)
        #expect(harness.clock.pendingDelays.isEmpty)
    }

    @Test func flushAndWaitReturnsAfterTheAttemptResolved() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(delay: 0.3)])
        harness.track(4)
        await harness.client.flushAndWait()
        #expect(harness.stats.sent == 4)
        #expect(await harness.status().flushInFlight == false)
    }
}

/// An integrator's destination built on the shared delivery machinery: its own format and
/// endpoint, the same batching, retry and breaker.
final class WebhookDestination: DestinationPlugin, EventPlugin, CompletingPlugin {
    struct Format: BatchFormat {
        func encode(_ event: Event) -> [UInt8] {
            JSONWriter.bytes(["id": .string(event.messageId), "what": .string(event.event ?? event.type.rawValue)])
        }

        func body(for events: [QueuedEvent], sentAt: Date) -> Data {
            var out = Array("[".utf8)
            for (index, event) in events.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += event.payload
            }
            return Data(out + Array("]".utf8))
        }

        var headers: [String: String] { ["Content-Type": "application/json", "X-Webhook": "1"] }
    }

    let key = "Webhook"
    let timeline = Timeline()
    private let endpoint: URL
    private(set) var uploader: BatchUploader?

    init(endpoint: URL) { self.endpoint = endpoint }

    func configure(analytics: AnalyticsClient) {
        var options = BatchUploader.Options()
        options.maxBatchSize = 2
        let uploader = BatchUploader(
            options: options, store: InMemoryEventStore(capacity: 100), wire: MetaRouterFormat(packing: Format(), endpoint: endpoint),
            transport: HTTPTransports.standard(timeout: 5), policies: [CountFlushPolicy(count: 1_000)], breakerRandom: { 0 })
        uploader.start(analytics: analytics)
        self.uploader = uploader
    }

    func track(event: Event) -> Event? {
        uploader?.enqueue(event)
        return event
    }

    func flush() { uploader?.flush() }

    func flush(completion: @escaping @Sendable () -> Void) {
        guard let uploader else { return completion() }
        uploader.flush(completion: completion)
    }

    func shutdown(completion: @escaping @Sendable () -> Void) {
        uploader?.stop()
        completion()
    }
}

@Suite struct ReusableMachineryTests {
    @Test func anotherDestinationReusesBatchingRetryAndBreaker() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(status: 500)])
        let clock = ManualClock()
        let webhook = WebhookDestination(endpoint: collector.baseURL.appendingPathComponent("hooks/orders"))
        let client = AnalyticsClient(
            configuration: Configuration(writeKey: "hook", logger: AnalyticsLogger(sink: RecordingLogSink()), clock: clock),
            plugins: [webhook])
        for name in ["a", "b", "c"] { client.track(name) }
        client.identify("ignored by the webhook")
        // Returns once the 500 has been handled and the retry is waiting on the manual clock.
        await client.flushAndWait()
        #expect(try await collector.requests().count == 1)
        clock.advance(by: 1)
        let requests = try await collector.waitFor { $0.count == 3 }
        #expect(requests.map(\.path) == ["/hooks/orders", "/hooks/orders", "/hooks/orders"])
        #expect(requests.map(\.status) == [500, 200, 200])
        #expect(requests[0].headers["idempotency-key"] == requests[1].headers["idempotency-key"])
        #expect(requests[0].headers["x-webhook"] == "1")
        let names = requests.dropFirst().flatMap { $0.body?.arrayValue ?? [] }.compactMap { $0["what"]?.stringValue }
        #expect(names == ["a", "b", "c"])
    }
}
