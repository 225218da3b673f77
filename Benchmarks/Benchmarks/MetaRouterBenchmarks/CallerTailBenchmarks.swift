@preconcurrency import Benchmark
import Foundation
@_spi(Benchmarks) import MetaRouter
import MetaRouterCore
import MetaRouterDelivery

/// The caller's cost in the shape issue #34 measures peers in: 100,000 `track` calls unpaced
/// (the executor never gets a pause to catch up), each with a fresh six-key dictionary that
/// holds a nested object, with the disk log on and the host answering. Timed call by call:
/// p50, p99 and p99.9, with the calls over 2 µs and the page faults the caller's thread took
/// during the calls (Linux), which the slow calls follow. The paced five-key shape stays beside it.
func registerCallerTailBenchmarks() {
    Benchmark(
        "track() caller cost, 100k unpaced calls, nested properties, disk log on",
        configuration: .init(
            metrics: [
                .custom("p50 ns", useScalingFactor: false), .custom("p99 ns", useScalingFactor: false), .custom("p99.9 ns", useScalingFactor: false),
                .custom("calls over 2 µs", useScalingFactor: false), .custom("page faults", useScalingFactor: false),
            ],
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
        let faultsBefore = callerPageFaults()
        for (index, properties) in dictionaries.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            client.track("Product Viewed", properties: properties)
            durations[index] = DispatchTime.now().uptimeNanoseconds - start
        }
        let faults = callerPageFaults() - faultsBefore
        runBlocking { await client.shutdown() }
        benchmark.measurement(.custom("p50 ns", useScalingFactor: false), Int(quantile(durations, 0.5)))
        benchmark.measurement(.custom("p99 ns", useScalingFactor: false), Int(quantile(durations, 0.99)))
        benchmark.measurement(.custom("p99.9 ns", useScalingFactor: false), Int(quantile(durations, 0.999)))
        benchmark.measurement(.custom("calls over 2 µs", useScalingFactor: false), durations.filter { $0 > 2_000 }.count)
        benchmark.measurement(.custom("page faults", useScalingFactor: false), faults)
    }
}

/// Page faults the calling thread has taken so far (0 where the count per thread is not available).
private func callerPageFaults() -> Int {
    #if os(Linux)
    var usage = rusage()
    guard getrusage(__rusage_who_t(1), &usage) == 0 else { return 0 }  // 1: RUSAGE_THREAD
    return usage.ru_minflt + usage.ru_majflt
    #else
    return 0
    #endif
}
