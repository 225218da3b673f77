import Foundation
import MetaRouter
import MetaRouterTesting

/// A client with identity and the MetaRouter destination pointed at a fresh collector, on a
/// manual clock unless told otherwise.
struct DeliveryHarness {
    let collector: Collector
    let clock: ManualClock
    let client: AnalyticsClient
    let destination: DurableDestination
    let logs: RecordingLogSink
    let failures: Locked<[PermanentFailure]>

    init(
        writeKey: String = "wk-delivery-1234",
        hostSuffix: String = "",
        clock: ManualClock = ManualClock(),
        realClock: (any AnalyticsClock)? = nil,
        configure: (inout MetaRouterDestination.Options) -> Void = { _ in }
    ) async throws {
        let collector = try await Collector.start()
        let failures = Locked<[PermanentFailure]>([])
        var options = MetaRouterDestination.Options(ingestionHost: URL(string: collector.baseURL.absoluteString + hostSuffix)!)
        options.upload.flushAt = 1_000_000
        options.upload.flushIntervalSeconds = 3600
        options.breakerRandom = { 0 }
        options.upload.requestTimeout = 5
        options.onPermanentFailure = { failure in failures.withLock { $0.append(failure) } }
        configure(&options)
        let destination = MetaRouterDestination.make(options: options)
        let logs = RecordingLogSink()
        let configuration = Configuration(
            writeKey: writeKey, logger: AnalyticsLogger(sink: logs), clock: realClock ?? clock)
        client = AnalyticsClient(configuration: configuration, plugins: [IdentityPlugin(), destination])
        self.collector = collector
        self.clock = clock
        self.destination = destination
        self.logs = logs
        self.failures = failures
    }

    /// The uploader's state, read on the executor.
    func status() async -> BatchUploader.Status {
        await withCheckedContinuation { continuation in
            client.perform { timeline in
                let uploader = timeline.find(DurableDestination.self)?.uploader
                continuation.resume(returning: uploader!.status())
            }
        }
    }

    var stats: DeliveryStats { destinationStats() }

    private func destinationStats() -> DeliveryStats {
        destination.uploader?.stats ?? DeliveryStats()
    }

    /// Moves the manual clock and lets the executor run what fell due, then waits for the
    /// attempt it started to resolve.
    func advance(by seconds: TimeInterval) async {
        clock.advance(by: seconds)
        await client.settle()
        await client.flushAndWait()
    }

    func track(_ count: Int, from start: Int = 0, name: String = "Event") {
        for index in start..<(start + count) { client.track(name, properties: ["n": index]) }
    }

    func stop() {
        collector.stop()
    }
}

extension JSON {
    /// `properties.n` of an event.
    var number: Int? { self["properties"]?["n"]?.int64Value.map(Int.init) }
}
