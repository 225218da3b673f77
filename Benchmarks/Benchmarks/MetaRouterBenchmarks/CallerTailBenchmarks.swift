@preconcurrency import Benchmark
import Foundation
import MetaRouterCore
import MetaRouterDelivery
import MetaRouterIdentity
import MetaRouterContext

/// The caller's cost in the shape issue #34 measures peers in: 100,000 `track` calls unpaced
/// (the executor never gets a pause to catch up), each with a fresh six-key dictionary that
/// holds a nested object, with the disk log on and the host answering. Timed call by call:
/// p50, p99 and p99.9. The paced five-key shape stays beside it.
func registerCallerTailBenchmarks() {
    Benchmark(
        "track() caller cost, 100k unpaced calls, nested properties, disk log on",
        configuration: .init(
            metrics: [.custom("p50 ns", useScalingFactor: false), .custom("p99 ns", useScalingFactor: false), .custom("p99.9 ns", useScalingFactor: false)],
            maxIterations: 3)
    ) { benchmark in
        let directory = benchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (client, _) = deliveryClient(transport: InMemoryTransport(), disk: true, directory: directory)
        runBlocking { await client.settle() }
        let calls = 100_000
        let dictionaries: [[String: Any]] = (0..<calls).map { index in
            [
                "sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear",
                "variant": ["size": 42, "color": "red"] as [String: Any],
            ]
        }
        var durations = [UInt64](repeating: 0, count: calls)
        for (index, properties) in dictionaries.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            client.track("Product Viewed", properties: properties)
            durations[index] = DispatchTime.now().uptimeNanoseconds - start
        }
        runBlocking { await client.shutdown() }
        benchmark.measurement(.custom("p50 ns", useScalingFactor: false), Int(quantile(durations, 0.5)))
        benchmark.measurement(.custom("p99 ns", useScalingFactor: false), Int(quantile(durations, 0.99)))
        benchmark.measurement(.custom("p99.9 ns", useScalingFactor: false), Int(quantile(durations, 0.999)))
    }
}
