@preconcurrency import Benchmark
import CollectorProcess
import Foundation
@_spi(Benchmarks) import MetaRouter
// Gzip and the batch format are not public API; the benchmarks reach them through SPI.
import MetaRouterDelivery
import MetaRouterTesting

/// What goes on the wire: bytes per event, plain and gzip-compressed, and what gzip costs.
func registerWireBenchmarks() {
    // Bytes on the wire per event: a track with five properties and the default context, in a
    // batch of 100 (envelope and sentAt included), plain and gzip-compressed.
    Benchmark(
        "wire bytes per event, batch of 100",
        configuration: .init(
            metrics: [.custom("bytes per event", useScalingFactor: false), .custom("gzip bytes per event", useScalingFactor: false)], maxIterations: 1)
    ) { benchmark in
        let body = sampleBatchBody()
        benchmark.measurement(.custom("bytes per event", useScalingFactor: false), body.count / 100)
        benchmark.measurement(.custom("gzip bytes per event", useScalingFactor: false), (benchmarkGzip(body)?.count ?? 0) / 100)
    }

    // What gzip costs: compressing one batch body of 100 such events (about 68 KB) with the
    // uploader's reused stream, and with a stream set up for the one body (as before).
    Benchmark("gzip one batch of 100 events", configuration: .init(scalingFactor: .one, maxIterations: 200)) { benchmark in
        let body = sampleBatchBody()
        guard let gzip = benchmarkHooks().gzip() else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(gzip(body)) }
        benchmark.stopMeasurement()
    }
    Benchmark("gzip one batch of 100 events, a stream per body", configuration: .init(scalingFactor: .one, maxIterations: 200)) { benchmark in
        let body = sampleBatchBody()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(benchmarkGzip(body)) }
        benchmark.stopMeasurement()
    }

    // Gzip against plain in paired rounds: each round delivers 5,000 events plain and 5,000
    // gzip-compressed, each through a Python collector of its own (which inflates and parses
    // every body), the two in alternating order. The figure is the median of the rounds'
    // gzip / plain ratios: pairing takes the machine's drift out of the ratio, which the
    // separate plain and gzip rows (`delivery over loopback HTTP, batches of 100`), measured
    // a minute apart, keep in it.
    Benchmark(
        "delivery over loopback HTTP, gzip / plain in paired rounds",
        configuration: .init(
            metrics: [
                .custom("gzip / plain ×1000", useScalingFactor: false), .custom("plain k events/s", useScalingFactor: false),
                .custom("gzip k events/s", useScalingFactor: false),
            ], maxIterations: 1)
    ) { benchmark in
        var ratios: [Double] = [], plain: [Double] = [], gzipped: [Double] = []
        for round in 0..<10 {
            var rates: [Bool: Double] = [:]
            for gzip in round % 2 == 0 ? [false, true] : [true, false] { rates[gzip] = deliveryRate(gzip: gzip, events: 5_000) }
            guard let plainRate = rates[false] ?? nil, let gzipRate = rates[true] ?? nil else { return }
            ratios.append(gzipRate / plainRate)
            plain.append(plainRate)
            gzipped.append(gzipRate)
        }
        benchmark.measurement(.custom("gzip / plain ×1000", useScalingFactor: false), Int(median(ratios) * 1_000))
        benchmark.measurement(.custom("plain k events/s", useScalingFactor: false), Int(median(plain) / 1_000))
        benchmark.measurement(.custom("gzip k events/s", useScalingFactor: false), Int(median(gzipped) / 1_000))
    }
}

/// Events per second delivered to a fresh Python collector, batches of 100: from the first
/// call until the host has acknowledged every event. `nil` when the collector cannot start.
private func deliveryRate(gzip: Bool, events: Int) -> Double? {
    guard let collector = try? PythonCollector() else { return nil }
    defer { collector.stop() }
    let destination = BenchmarkPipeline.destination(host: collector.url, flushAt: 100, maxQueueEvents: 100_000, gzip: gzip)
    let client = BenchmarkPipeline(after: [destination])
    runBlocking { await client.settle() }
    guard let stats = benchmarkStatsReader(of: destination) else { return nil }
    let properties = fiveProperties()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<events { client.track("Product Viewed", properties: properties) }
    runBlocking {
        while stats().sent < events { await client.flushAndWait() }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    runBlocking { await client.shutdown() }
    return Double(events) / elapsed
}

private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// The body of a batch of 100 tracks with five properties each, as sent: the values vary from
/// event to event (a SKU, a price, a quantity), as a real batch's do, so gzip is not flattered.
private func sampleBatchBody() -> Data {
    let capture = CapturingDestination()
    let client = timelineClient(capture: capture)
    for index in 0..<100 {
        client.track("Product Viewed", properties: [
            "sku": "SKU-\(10_000 + index * 37)", "price": Double(index * 7 % 100) + 0.99, "quantity": index % 5 + 1,
            "in_stock": index % 3 != 0, "category": ["shoes", "bags", "hats", "coats"][index % 4],
        ])
    }
    runBlocking { await client.settle() }
    return benchmarkBatchBody(of: capture.events, writeKey: "0123456789abcdef0123456789abcdef", sentAt: Date())
}

