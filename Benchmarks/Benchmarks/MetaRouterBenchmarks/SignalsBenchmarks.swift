@preconcurrency import Benchmark
import Foundation
import MetaRouter

/// Signals: what `emit` costs the caller, and a signal's whole trip on the executor.
func registerSignalsBenchmarks() {
    // The caller's cost of `emit` (the timestamp and one hand-off to the ingress); the executor
    // adds the signals concurrently, running the seed's Add To Cart rule on each.
    Benchmark("signals: emit() caller cost", configuration: .init(scalingFactor: .kilo, maxIterations: 50)) { benchmark in
        let directory = benchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = InitOptions(writeKey: "bench-signals-\(UUID())", ingestionHost: "https://bench.invalid", flushIntervalSeconds: 3600)
        options.storageDirectory = directory
        options.transport = InMemoryTransport()
        options.maxDiskEvents = 0
        let rules = try? SignalGenerator.rules("""
            generator "Add To Cart" {
                on interaction when data.title = "Add To Cart"
                find product: network where data.action = "response" and contains(data.url, "product")
                track "Add To Cart"
                set properties.price = product.data.content.price
            }
            """)
        options.signals = SignalsConfiguration(generators: rules.map { [$0] } ?? [])
        let analytics = MetaRouter.Analytics.instance(for: options)
        let signal = SignalContent.interaction(component: "button", title: "Details")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { analytics.emit(signal) }
        benchmark.stopMeasurement()
        runBlocking { _ = await analytics.shutdown() }
    }
}
