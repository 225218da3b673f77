@preconcurrency import Benchmark
import CollectorProcess
import Foundation
@_spi(Benchmarks) import MetaRouter
import MetaRouterCore
import MetaRouterDelivery
import MetaRouterTesting

/// Five properties of the usual kinds, as a product-analytics call carries.
func fiveProperties() -> [String: Any] {
    ["sku": "SHOE-123", "price": 19.99, "quantity": 2, "in_stock": true, "category": "footwear"]
}

func timelineClient(capture: CapturingDestination) -> BenchmarkPipeline {
    BenchmarkPipeline(after: [benchmarkAdvertisingIDPlugin(), capture], application: ApplicationInfo(name: "bench", version: "1.0", build: "1"))
}

/// Twenty rules of the usual kinds.
func sampleEvent() -> Event {
    Event(type: .track, anonymousId: UUID().uuidString.lowercased(), userId: "user-1", event: "Product Viewed",
          properties: ["sku": "SHOE-123", "price": 19.99, "quantity": 2, "in_stock": true, "currency": "EUR"],
          context: ["library": ["name": "metarouter-swift", "version": "0.1.0"], "app": ["name": "bench"]])
}

/// The encoded bytes of a typical track event (five properties, default context).
private func sampleEventPayload() -> [UInt8] {
    var event = Event(type: .track, anonymousId: UUID().uuidString.lowercased(), event: "Product Viewed",
                      properties: ["sku": "SHOE-123", "price": 19.99, "quantity": 2, "in_stock": true, "category": "footwear"],
                      context: ["library": ["name": "metarouter-swift", "version": "0.1.0"], "app": ["name": "bench", "version": "1.0", "build": "1"],
                                "os": ["name": "Linux", "version": "6.1.0"], "device": ["type": "server", "model": "x86_64"],
                                "locale": "en_US", "timezone": "Etc/UTC"])
    event.writeKey = "0123456789abcdef0123456789abcdef"
    return benchmarkEventJSONBytes(event)
}

/// A client with identity, context and the MetaRouter destination (disk log on, unless
/// `disk` is false) over `transport`, in a fresh directory under the temporary directory.
func deliveryClient(transport: any HTTPTransport, disk: Bool, directory: URL) -> (BenchmarkPipeline, any DestinationPlugin) {
    let destination = BenchmarkPipeline.destination(
        host: URL(string: "https://bench.invalid")!, transport: transport, flushAt: 100, maxQueueEvents: 1_000_000, disk: disk ? directory : nil)
    return (BenchmarkPipeline(after: [destination]), destination)
}

func benchDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
}

/// Runs `count` track calls through the whole pipeline (identity, context, batching, the disk
/// log if `disk`, delivery) into a transport that answers 200 at once: `started` runs just
/// before the first call, `finished` once every event is acknowledged.
private func runPipeline(disk: Bool, count: Int, started: () -> Void, finished: () -> Void) {
    let directory = benchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (client, destination) = deliveryClient(transport: InMemoryTransport(), disk: disk, directory: directory)
    runBlocking { await client.settle() }
    guard let stats = benchmarkStatsReader(of: destination) else { return }
    let properties = fiveProperties()
    started()
    for _ in 0..<count { client.track("Product Viewed", properties: properties) }
    runBlocking {
        while stats().sent < count { await client.flushAndWait() }
    }
    finished()
    runBlocking { await client.shutdown() }
}

/// The `fraction` quantile of `values` (sorted in place).
func quantile(_ values: [UInt64], _ fraction: Double) -> UInt64 {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

/// Runs `body` in a task and waits for it on the calling thread (a benchmark's, never the pool's),
/// returning what it returned.
@discardableResult
func runBlocking<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let done = DispatchSemaphore(value: 0)
    let result = TaskResult<Value>()
    Task {
        result.value = await body()
        done.signal()
    }
    done.wait()
    return result.value!
}

/// What ``runBlocking(_:)``'s task returned.
private final class TaskResult<Value: Sendable>: @unchecked Sendable {  // written by the task before `signal`, read after `wait`
    var value: Value?
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, .throughput],
        maxDuration: .seconds(5), maxIterations: 1_000_000)

    // What the caller pays for one track() with five properties: conversion, timestamp,
    // messageId, hand-off to the ingress. The executor drains concurrently.
    Benchmark("track() caller cost, 5 properties", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let capture = CapturingDestination()
        let client = timelineClient(capture: capture)
        let properties = fiveProperties()
        runBlocking { await client.settle() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.track("Product Viewed", properties: properties)
        }
        benchmark.stopMeasurement()
        runBlocking { await client.settle() }
        capture.clear()
    }

    // The same with a fresh dictionary per call, as an app's call sites build them (the one
    // above reuses one dictionary, which flatters it), timed call by call: p50 and p99 of
    // 20,000 calls in rounds of 1,000 that let the executor catch up in between.
    Benchmark(
        "track() caller cost, 5 properties, fresh dictionary per call",
        configuration: .init(metrics: [.custom("p50 ns", useScalingFactor: false), .custom("p99 ns", useScalingFactor: false)], maxIterations: 3)
    ) { benchmark in
        let capture = CapturingDestination()
        let client = timelineClient(capture: capture)
        runBlocking { await client.settle() }
        var durations: [UInt64] = []
        durations.reserveCapacity(20_000)
        for round in 0..<20 {
            let dictionaries: [[String: Any]] = (0..<1_000).map { index in
                ["sku": "SHOE-\(round * 1_000 + index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear"]
            }
            for properties in dictionaries {
                let start = DispatchTime.now().uptimeNanoseconds
                client.track("Product Viewed", properties: properties)
                durations.append(DispatchTime.now().uptimeNanoseconds - start)
            }
            runBlocking { await client.settle() }
            capture.clear()
        }
        benchmark.measurement(.custom("p50 ns", useScalingFactor: false), Int(quantile(durations, 0.5)))
        benchmark.measurement(.custom("p99 ns", useScalingFactor: false), Int(quantile(durations, 0.99)))
    }

    // Events per second through the default timeline (identity, context, advertising ID) into
    // a capturing destination, end to end: call, ingress, executor, plugins.
    Benchmark("timeline throughput, default plugins", configuration: .init(scalingFactor: .kilo, maxIterations: 50)) { benchmark in
        let capture = CapturingDestination()
        let client = timelineClient(capture: capture)
        let properties = fiveProperties()
        runBlocking { await client.settle() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.track("Product Viewed", properties: properties)
        }
        runBlocking { await client.settle() }
        benchmark.stopMeasurement()
        blackHole(capture.events.count)
    }

    registerWireBenchmarks()

    // The disk log: bytes written per byte of event payload over 100k events, acknowledged in
    // batches of 100 and committed every 20 events (one executor drain cycle).
    Benchmark(
        "disk log write amplification, 100k events",
        configuration: .init(metrics: [.custom("written / payload ×1000", useScalingFactor: false)], maxIterations: 1)
    ) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let log = benchmarkDiskLog(directory: directory) else { return }
        let payload = sampleEventPayload()
        var payloadBytes = 0
        for index in 0..<100_000 {
            log.append("\(UUID().uuidString)", payload)
            payloadBytes += payload.count
            if index % 20 == 19 { log.commit() }
            if index % 100 == 99 { log.deliverBatch(100) }
        }
        log.commit()
        benchmark.measurement(.custom("written / payload ×1000", useScalingFactor: false), log.bytesWritten() * 1000 / payloadBytes)
    }

    // Executor cost of the disk log per event: append plus a grouped commit every 20 events.
    Benchmark("disk log append + grouped commit", configuration: .init(scalingFactor: .kilo, maxIterations: 200)) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let log = benchmarkDiskLog(directory: directory) else { return }
        let payload = sampleEventPayload()
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            log.append("1795306645877-2EF92BC2-FC1E-4573-99EC-74F03062938A", payload)
            if index % 20 == 19 { log.commit() }
            if index % 100 == 99 { log.deliverBatch(100) }
        }
        benchmark.stopMeasurement()
    }

    registerDataQualityBenchmarks()
    registerSignalsBenchmarks()
    registerEntitlementsBenchmarks()
    registerCallerTailBenchmarks()
    registerDeliveryMemoryBenchmarks()
    registerRuleBenchmarks()

    // Opening a log that holds 10k undelivered events (read, verify, index).
    Benchmark("disk log recovery, 10k events", configuration: .init(maxIterations: 20)) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = sampleEventPayload()
        do {
            guard let log = benchmarkDiskLog(directory: directory) else { return }
            for _ in 0..<10_000 { log.append("\(UUID().uuidString)", payload) }
            log.sync()
        }
        benchmark.startMeasurement()
        let reopened = benchmarkDiskLog(directory: directory)
        benchmark.stopMeasurement()
        blackHole(reopened?.count())
    }

    // Events per second delivered over real HTTP to a loopback collector, batches of 100,
    // plain and with gzip-compressed bodies: to the Python collector, which decodes them, and to
    // the native one in this process, which does not (so the rate is the SDK's side alone).
    for native in [false, true] {
        for gzip in [false, true] {
            delivery(toNativeCollector: native, gzip: gzip)
        }
    }

    // Events per second through the whole pipeline — call, identity, context, batching,
    // disk log (or not), delivery — into a transport that answers 200 at once.
    for disk in [true, false] {
        Benchmark(
            "pipeline throughput, disk log \(disk ? "on" : "off"), in-memory transport",
            configuration: .init(scalingFactor: .kilo, maxIterations: 20)
        ) { benchmark in
            runPipeline(disk: disk, count: benchmark.scaledIterations.count,
                        started: { benchmark.startMeasurement() }, finished: { benchmark.stopMeasurement() })
        }
    }

    // The same pipeline over 100,000 calls from one producer (the peers were measured this
    // way): a fresh client per round, the rate from the first call to the last event
    // acknowledged, so per-round start-up is amortised as it is in a running app.
    for disk in [true, false] {
        Benchmark(
            "pipeline throughput, 100k events, disk log \(disk ? "on" : "off")",
            configuration: .init(metrics: [.custom("k events/s", useScalingFactor: false)], maxIterations: 5)
        ) { benchmark in
            let total = 100_000
            var start: UInt64 = 0
            var elapsed = 0.0
            runPipeline(disk: disk, count: total, started: { start = DispatchTime.now().uptimeNanoseconds },
                        finished: { elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 })
            guard elapsed > 0 else { return }
            benchmark.measurement(.custom("k events/s", useScalingFactor: false), Int(Double(total) / elapsed / 1_000))
        }
    }

    registerMemoryBenchmarks()
    registerFacadeBenchmarks()
    registerInstanceLookupBenchmark()
    registerDestinationBenchmarks()

    // The durability window: from track() returning to the event's record reaching write(2)
    // (what survives kill -9), at a sustained 10,000 events/s for 3 s with the host down.
    // A watcher thread reads the segment files from outside the SDK every 0.5 ms.
    Benchmark(
        "durability window at 10k events/s, host down",
        configuration: .init(
            metrics: [.custom("p50 µs", useScalingFactor: false), .custom("p99 µs", useScalingFactor: false),
                      .custom("max µs", useScalingFactor: false), .custom("never written", useScalingFactor: false)],
            maxIterations: 1)
    ) { benchmark in
        let directory = benchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (client, _) = deliveryClient(transport: InMemoryTransport(failureRate: 1), disk: true, directory: directory)
        runBlocking { await client.settle() }
        let watcher = LogWatcher(directory: directory)
        watcher.start()
        let total = 30_000
        var returned = [UInt64](repeating: 0, count: total)
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<total {
            client.track("Product Viewed", properties: ["n": index, "sku": "SHOE-123", "price": 19.99])
            let now = DispatchTime.now().uptimeNanoseconds
            returned[index] = now
            let due = start + UInt64(index + 1) * 100_000
            if due > now + 50_000 { usleep(UInt32((due - now) / 1_000)) }
        }
        runBlocking { await client.settle() }
        usleep(300_000)
        let seen = watcher.stop()
        let windows = (0..<total).compactMap { index in seen[index].map { $0 > returned[index] ? ($0 - returned[index]) / 1_000 : 0 } }
        benchmark.measurement(.custom("p50 µs", useScalingFactor: false), Int(quantile(windows, 0.5)))
        benchmark.measurement(.custom("p99 µs", useScalingFactor: false), Int(quantile(windows, 0.99)))
        benchmark.measurement(.custom("max µs", useScalingFactor: false), Int(quantile(windows, 1)))
        benchmark.measurement(.custom("never written", useScalingFactor: false), total - windows.count)
        runBlocking { await client.shutdown() }
    }

    // Delivery through faults: events/s delivered when 30 % of requests fail (500, 503, 408,
    // timeouts, dropped connections) with the default retry and breaker policy, as a fraction
    // of the fault-free rate (×1000). Disk log off, 5,000 events, batches of 100.
    Benchmark(
        "delivery through 30 % faults vs fault-free",
        configuration: .init(metrics: [.custom("faulty / fault-free ×1000", useScalingFactor: false)], maxIterations: 1)
    ) { benchmark in
        func rate(failureRate: Double) -> Double {
            let (client, destination) = deliveryClient(transport: InMemoryTransport(failureRate: failureRate), disk: false, directory: benchDirectory())
            runBlocking { await client.settle() }
            guard let stats = benchmarkStatsReader(of: destination) else { return 0 }
            let total = 5_000
            let start = Date()
            for index in 0..<total { client.track("Product Viewed", properties: ["n": index]) }
            runBlocking {
                while stats().sent < total {
                    await client.flushAndWait()
                    try? await Task.sleep(nanoseconds: 5_000_000)
                }
            }
            let elapsed = Date().timeIntervalSince(start)
            runBlocking { await client.shutdown() }
            return Double(total) / elapsed
        }
        let clean = rate(failureRate: 0)
        let faulty = rate(failureRate: 0.3)
        benchmark.measurement(.custom("faulty / fault-free ×1000", useScalingFactor: false), Int(faulty / clean * 1_000))
    }
}

/// Events per second delivered over real HTTP to a loopback collector, batches of 100.
private func delivery(toNativeCollector native: Bool, gzip: Bool) {
    let name = "delivery over loopback HTTP\(native ? " to the native collector" : ""), batches of 100\(gzip ? ", gzip" : "")"
    Benchmark(name, configuration: .init(scalingFactor: .kilo, maxIterations: 10)) { benchmark in
        let collector: (url: URL, stop: () -> Void)
        if native {
            guard let started = try? NativeCollector() else { return }
            collector = (started.url, started.stop)
        } else {
            guard let started = try? PythonCollector() else { return }
            collector = (started.url, started.stop)
        }
        defer { collector.stop() }
        let destination = BenchmarkPipeline.destination(host: collector.url, flushAt: 100, maxQueueEvents: 100_000, gzip: gzip)
        let client = BenchmarkPipeline(after: [destination])
        runBlocking { await client.settle() }
        guard let stats = benchmarkStatsReader(of: destination) else { return }
        let properties = fiveProperties()
        let total = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.track("Product Viewed", properties: properties)
        }
        runBlocking {
            while stats().sent < total {
                await client.flushAndWait()
            }
        }
        benchmark.stopMeasurement()
        runBlocking { await client.shutdown() }
    }
}
