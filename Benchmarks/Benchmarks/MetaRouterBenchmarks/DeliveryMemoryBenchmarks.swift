@preconcurrency import Benchmark
import Foundation
import MetaRouterCore
import MetaRouterDelivery
import MetaRouterContext
import MetaRouterIdentity

/// Peak resident memory while a backlog is delivered, in issue #34's shape: 100,000 `track`
/// calls unpaced, each with a fresh six-key dictionary holding a nested object, delivered over
/// real HTTP to the loopback collector in batches of 100, disk log on and off. Reports the
/// process's peak RSS for the run and the delivery rate.
func registerDeliveryMemoryBenchmarks() {
    for disk in [true, false] {
        Benchmark(
            "peak memory delivering 100k events over loopback HTTP, disk log \(disk ? "on" : "off")",
            configuration: .init(
                metrics: [.peakMemoryResident, .custom("k events/s", useScalingFactor: false)], warmupIterations: 0, maxIterations: 3)
        ) { benchmark in
            guard let collector = try? LoopbackCollector() else { return }
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
            let client = AnalyticsClient(configuration: benchConfiguration(), plugins: [IdentityPlugin(), ContextPlugin(), destination])
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
            runBlocking {
                while stats().sent + stats().dropped.values.reduce(0, +) < total { await client.flushAndWait() }
            }
            benchmark.stopMeasurement()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            benchmark.measurement(.custom("k events/s", useScalingFactor: false), Int(Double(stats().sent) / seconds / 1000))
            runBlocking { await client.shutdown() }
        }
    }
}
