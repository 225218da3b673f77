@preconcurrency import Benchmark
import Foundation
import MetaRouter
import MetaRouterErrors
import MetaRouterPrivacy

/// The data-quality plugins on the executor: PII scrubbing, the tracking plan, breadcrumbs.
func registerDataQualityBenchmarks() {
    // PII scrubbing on the executor: the plugin's whole hook for a track event with five
    // properties and no personal data (the common case), scrubbing on.
    Benchmark("pii scrubbing, 5 properties, no PII", configuration: .init(scalingFactor: .mega, maxIterations: 20)) { benchmark in
        let plugin = benchmarkScrubber()
        let event = sampleEvent()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(plugin.execute(event: event)) }
        benchmark.stopMeasurement()
    }

    // Tracking plan: checking a track event with five properties against its plan entry (types,
    // required, an enum, a bound, a pattern, additionalProperties: false), the event valid.
    Benchmark("tracking plan check, 5 properties", configuration: .init(scalingFactor: .kilo, maxIterations: 50)) { benchmark in
        let plan = try? TrackingPlan(json: """
            { "events": { "Product Viewed": { "properties": { "type": "object", "additionalProperties": false,
              "required": ["sku", "price"],
              "properties": { "sku": { "type": "string", "pattern": "^[A-Z]+-[0-9]+$" }, "price": { "type": "number", "minimum": 0 },
                              "quantity": { "type": "integer" }, "in_stock": { "type": "boolean" },
                              "currency": { "enum": ["EUR", "USD"] } } } } } }
            """)
        guard let plan else { return }
        let event = sampleEvent()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(plan.violations(of: event)) }
        benchmark.stopMeasurement()
    }

    // Breadcrumbs on the executor: `addBreadcrumb`'s work, and the automatic breadcrumb a
    // track leaves (the plugin's hook), each into a full ring of 50.
    // The same with crash capture on: each breadcrumb is also written, in binary, into the
    // slots a crash record carries (the custom one's data as JSON).
    for crashCapture in [false, true] {
    Benchmark(
        "breadcrumbs: add one, and the one a track leaves\(crashCapture ? ", crash capture on" : "")",
        configuration: .init(scalingFactor: .mega, maxIterations: 20)
    ) { benchmark in
        let (plugin, add) = benchmarkBreadcrumbs(capacity: 50, crashDirectory: crashCapture ? benchDirectory() : nil)
        let crumb = Breadcrumb(category: "navigation", message: "checkout", data: ["step": 2])
        let event = sampleEvent()
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            if index & 1 == 0 { add(crumb) } else { blackHole(plugin.execute(event: event)) }
        }
        benchmark.stopMeasurement()
    }
    }
}
