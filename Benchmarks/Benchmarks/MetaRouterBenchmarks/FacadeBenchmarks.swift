@preconcurrency import Benchmark
import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

/// The pipeline as an app runs it: an instance from `Analytics.instance(for:)` with default
/// options (every default plugin and every trait's plugin the defaults turn on), 100,000 `track`
/// calls from one thread, each with a fresh six-key dictionary holding a nested object, and
/// delivery through a transport that answers 200 at once. The package's other pipeline rows
/// assemble a pipeline of identity, context and delivery by hand and pass one dictionary to
/// every call; issue #53's side-by-side harness measured the facade in this shape.
///
/// Reports the rate from the first call to the last event sent, the process's CPU time per
/// event over that span (every thread: the caller's, the executor's, delivery's), and the
/// context switches per 100,000 events (voluntary and not, every thread).
func registerFacadeBenchmarks() {
    for disk in [true, false] {
        Benchmark(
            "pipeline throughput through the facade, default options, 100k calls, disk log \(disk ? "on" : "off")",
            configuration: .init(
                metrics: [
                    .custom("k events/s", useScalingFactor: false), .custom("CPU ns per event", useScalingFactor: false),
                    .custom("context switches per 100k events", useScalingFactor: false),
                ], maxIterations: 5)
        ) { benchmark in
            let total = 100_000
            let directory = benchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var options = InitOptions(writeKey: "bench-facade-\(UUID())", ingestionHost: "https://bench.invalid")
            options.storageDirectory = directory
            options.transport = InMemoryTransport()
            options.trackLifecycleEvents = false
            if !disk {
                options.maxDiskEvents = 0
                options.maxQueueEvents = total
            }
            let analytics = MetaRouter.Analytics.instance(for: options)
            runBlocking { await analytics.flushAndWait() }
            let before = ProcessUsage.now()
            for index in 0..<total {
                analytics.track("Product Viewed", properties: [
                    "sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear",
                    "variant": ["size": 42, "color": "red"] as [String: Any],
                ])
            }
            runBlocking {
                while true {
                    let stats = await analytics.getDebugInfo().stats
                    if stats.sent + stats.dropped.values.reduce(0, +) >= total { break }
                    await analytics.flushAndWait()
                }
            }
            let used = ProcessUsage.now().since(before)
            benchmark.measurement(.custom("k events/s", useScalingFactor: false), Int(Double(total) / used.seconds / 1_000))
            benchmark.measurement(.custom("CPU ns per event", useScalingFactor: false), Int(used.cpuSeconds * 1e9 / Double(total)))
            benchmark.measurement(.custom("context switches per 100k events", useScalingFactor: false), used.switches * 100_000 / total)
            runBlocking { _ = await analytics.shutdown() }
        }
    }
}

/// A server's per-request lookup of its tenant's instance: `Analytics.instance(for:)` with the
/// options the instance was made with (a lock, a lookup and the comparison of every option,
/// for `sdk.instance_exists`).
func registerInstanceLookupBenchmark() {
    Benchmark("instance(for:) with a known write key and the same options", configuration: .init(scalingFactor: .mega, maxIterations: 20)) { benchmark in
        let directory = benchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = InitOptions(writeKey: "bench-lookup-\(UUID())", ingestionHost: "https://bench.invalid")
        options.storageDirectory = directory
        options.transport = InMemoryTransport()
        let made = MetaRouter.Analytics.instance(for: options)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(MetaRouter.Analytics.instance(for: options)) }
        benchmark.stopMeasurement()
        runBlocking { _ = await made.shutdown() }
    }
}

/// Wall time, CPU time and context switches of the whole process (`getrusage`).
struct ProcessUsage {
    var uptime: UInt64
    var cpuSeconds: Double
    var switches: Int

    static func now() -> ProcessUsage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return ProcessUsage(uptime: DispatchTime.now().uptimeNanoseconds, cpuSeconds: cpu, switches: usage.ru_nvcsw + usage.ru_nivcsw)
    }

    func since(_ start: ProcessUsage) -> (seconds: Double, cpuSeconds: Double, switches: Int) {
        (Double(uptime - start.uptime) / 1e9, cpuSeconds - start.cpuSeconds, switches - start.switches)
    }
}
