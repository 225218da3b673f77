@preconcurrency import Benchmark
import Foundation
import MetaRouterCore
import MetaRouterDelivery
import MetaRouterContext
import MetaRouterIdentity

/// Peak resident memory while a backlog is delivered, in issue #34's shape: 100,000 `track`
/// calls unpaced, each with a fresh six-key dictionary holding a nested object, delivered over
/// real HTTP to a loopback collector in batches of 100, disk log on and off. Reports the
/// process's peak RSS for the run, the delivery rate, and the calls still waiting for the
/// executor when the last one returned (the backlog the peak holds). The collector is the native one in
/// this process (its buffers count in the peak: a quarter of a megabyte per connection), so the
/// rate is the SDK's, not the Python collector's.
func registerDeliveryMemoryBenchmarks() {
    for disk in [true, false] {
        Benchmark(
            "peak memory delivering 100k events over loopback HTTP, disk log \(disk ? "on" : "off")",
            configuration: .init(
                metrics: [
                    .peakMemoryResident, .custom("k events/s", useScalingFactor: false),
                    .custom("k calls waiting after the last call", useScalingFactor: false),
                ], warmupIterations: 0, maxIterations: 3)
        ) { benchmark in
            guard let collector = try? NativeCollector() else { return }
            defer { collector.stop() }
            let directory = benchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let total = 100_000
            var options = MetaRouterDestination.Options(ingestionHost: collector.url)
            options.upload.flushAt = 100
            options.upload.maxQueueEvents = total
            if disk {
                var log = DiskLogOptions(directory: directory)
                log.maxEvents = total
                log.maxBytes = 1 << 30
                options.disk = log
            }
            let destination = MetaRouterDestination.make(options: options)
            let started = StartedEvents()
            let client = AnalyticsClient(configuration: benchConfiguration(), plugins: [started, IdentityPlugin(), ContextPlugin(), destination])
            runBlocking { await client.settle() }
            guard let stats = benchmarkStatsReader(of: destination) else { return }
            let start = DispatchTime.now().uptimeNanoseconds
            benchmark.startMeasurement()
            // Each dictionary is built at its call, as an app's call sites build them, so the
            // peak is the SDK's backlog, not a pre-built array of 100,000 dictionaries.
            for index in 0..<total {
                client.track(
                    "Product Viewed",
                    properties: [
                        "sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear",
                        "variant": ["size": 42, "color": "red"] as [String: Any],
                    ])
            }
            let waiting = total - started.count
            runBlocking {
                while stats().sent + stats().dropped.values.reduce(0, +) < total { await client.flushAndWait() }
            }
            benchmark.stopMeasurement()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            benchmark.measurement(.custom("k events/s", useScalingFactor: false), Int(Double(stats().sent) / seconds / 1000))
            benchmark.measurement(.custom("k calls waiting after the last call", useScalingFactor: false), waiting / 1000)
            runBlocking { await client.shutdown() }
        }
    }
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
