@preconcurrency import Benchmark
import CollectorProcess
import Foundation
@_spi(Benchmarks) import MetaRouter
import MetaRouterCore
import MetaRouterDelivery

/// Peak resident memory while a backlog is delivered, in issue #34's shape: 100,000 `track`
/// calls unpaced, each with a fresh six-key dictionary holding a nested object, delivered over
/// real HTTP to a loopback collector in batches of 100, disk log on and off. Reports the
/// process's peak RSS for the run, the delivery rate, and the calls still waiting for the
/// executor when the last one returned (the backlog the peak holds). The collector is the native
/// one in this process (its buffers count in the peak: a quarter of a megabyte per connection),
/// so the rate is the SDK's, not the Python collector's.
///
/// Two more runs take the callers' waiting calls out of the peak, to show what delivering costs
/// on its own: the same calls paced (the producer lets the executor catch up every 1,000
/// calls), and a backlog of 100,000 events stored in the disk log while the host was down,
/// opened (recovered) and delivered by the next client on the same directory.
func registerDeliveryMemoryBenchmarks() {
    for (disk, paced) in [(true, false), (false, false), (true, true), (false, true)] {
        Benchmark(
            "peak memory delivering 100k events over loopback HTTP, disk log \(disk ? "on" : "off")\(paced ? ", calls paced" : "")",
            configuration: .init(
                metrics: [
                    .peakMemoryResident, .custom("k events/s", useScalingFactor: false),
                    .custom("k calls waiting after the last call", useScalingFactor: false),
                ], warmupIterations: 0, maxIterations: 3)
        ) { benchmark in
            withCollector { collector, directory in
                let total = 100_000
                let destination = peakDestination(host: collector.url, disk: disk ? directory : nil, total: total)
                let started = StartedEvents()
                let client = BenchmarkPipeline(before: [started], after: [destination])
                runBlocking { await client.settle() }
                guard let stats = benchmarkStatsReader(of: destination) else { return }
                let start = DispatchTime.now().uptimeNanoseconds
                benchmark.startMeasurement()
                // Each dictionary is built at its call, as an app's call sites build them, so the
                // peak is the SDK's backlog, not a pre-built array of 100,000 dictionaries.
                for index in 0..<total {
                    client.track("Product Viewed", properties: nestedProperties(index))
                    if paced, index % 1000 == 999 { runBlocking { await client.settle() } }
                }
                let waiting = total - started.count
                deliverAll(total, client: client, stats: stats, benchmark: benchmark, since: start)
                benchmark.measurement(.custom("k calls waiting after the last call", useScalingFactor: false), waiting / 1000)
                runBlocking { await client.shutdown() }
            }
        }
    }

    Benchmark(
        "peak memory delivering a backlog of 100k events recovered from the disk log",
        configuration: .init(
            metrics: [
                .peakMemoryResident, .custom("MB resident when the next client opens", useScalingFactor: false),
                .custom("k events/s", useScalingFactor: false),
            ],
            warmupIterations: 0, maxIterations: 3)
    ) { benchmark in
        withCollector { collector, directory in
            let total = 100_000
            // The backlog: stored while every request is answered 503, then the client shut down.
            let down = peakDestination(host: collector.url, disk: directory, total: total, transport: InMemoryTransport(failureRate: 1))
            let writer = BenchmarkPipeline(after: [down])
            for index in 0..<total {
                writer.track("Product Viewed", properties: nestedProperties(index))
                if index % 1000 == 999 { runBlocking { await writer.settle() } }
            }
            runBlocking { _ = await writer.shutdown(timeout: 1) }
            let before = residentMemoryBytes()
            // Measured from the next client's start: opening the log (recovery) and delivering.
            let start = DispatchTime.now().uptimeNanoseconds
            benchmark.startMeasurement()
            let destination = peakDestination(host: collector.url, disk: directory, total: total)
            let client = BenchmarkPipeline(after: [destination])
            runBlocking { await client.settle() }
            guard let stats = benchmarkStatsReader(of: destination) else { return }
            deliverAll(total, client: client, stats: stats, benchmark: benchmark, since: start)
            benchmark.measurement(.custom("MB resident when the next client opens", useScalingFactor: false), before / 1_000_000)
            runBlocking { await client.shutdown() }
        }
    }
}

/// Waits until `total` events have left (sent, or dropped for good), ends the measurement and
/// reports the delivery rate since `start` (`DispatchTime` nanoseconds).
private func deliverAll(
    _ total: Int, client: BenchmarkPipeline, stats: @escaping @Sendable () -> DeliveryStats, benchmark: Benchmark, since start: UInt64
) {
    runBlocking {
        while stats().sent + stats().dropped.values.reduce(0, +) < total { await client.flushAndWait() }
    }
    benchmark.stopMeasurement()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    benchmark.measurement(.custom("k events/s", useScalingFactor: false), Int(Double(stats().sent) / seconds / 1000))
}

/// Six properties, one of them an object, built at the call as an app's call sites build them.
private func nestedProperties(_ index: Int) -> [String: Any] {
    [
        "sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear",
        "variant": ["size": 42, "color": "red"] as [String: Any],
    ]
}

/// Delivery to `host` in batches of 100, with room for `total` events, through the disk log in
/// `disk` when there is one.
private func peakDestination(host: URL, disk: URL?, total: Int, transport: (any HTTPTransport)? = nil) -> any DestinationPlugin {
    BenchmarkPipeline.destination(host: host, transport: transport, flushAt: 100, maxQueueEvents: total, disk: disk)
}

/// Counts the events the executor has started on: the first plugin of the timeline.
private final class StartedEvents: Plugin {
    let type = PluginType.before
    private let started = NSLock()
    private var startedCount = 0  // only touched under `started`

    var count: Int { started.withLock { startedCount } }

    func execute(event: consuming Event) -> Event? {
        started.withLock { startedCount += 1 }
        return event
    }
}

/// Runs `body` with a native collector on 127.0.0.1 and a fresh directory, both gone when it
/// returns; nothing runs when the collector cannot listen.
private func withCollector(_ body: (NativeCollector, URL) -> Void) {
    guard let collector = try? NativeCollector() else { return }
    defer { collector.stop() }
    let directory = benchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    body(collector, directory)
}
