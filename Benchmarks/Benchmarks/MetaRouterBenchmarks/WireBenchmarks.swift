@preconcurrency import Benchmark
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

