@preconcurrency import Benchmark
import Foundation
import MetaRouter
import MetaRouterTesting

/// Five properties of the usual kinds, as a product-analytics call carries.
private func fiveProperties() -> [String: Any] {
    ["sku": "SHOE-123", "price": 19.99, "quantity": 2, "in_stock": true, "category": "footwear"]
}

private func timelineClient(capture: CapturingDestination) -> AnalyticsClient {
    let configuration = Configuration(
        writeKey: "bench", logger: Logger(sink: StandardErrorLogSink(), minimumLevel: .error),
        application: ApplicationInfo(name: "bench", version: "1.0", build: "1"))
    return AnalyticsClient(
        configuration: configuration, plugins: [IdentityPlugin(), ContextPlugin(), AdvertisingIDPlugin(), capture])
}

/// Twenty rules of the usual kinds.
private func twentyRules() -> String {
    (0..<20).map { index in
        switch index % 5 {
        case 0: return "rule \"r\(index)\" { when event = \"Checkout \(index)\"\n drop }"
        case 1: return "rule \"r\(index)\" { when properties.price > \(index) and type = \"track\"\n set properties.tier\(index) = \"high\" }"
        case 2: return "rule \"r\(index)\" { when match(event, \"Product *\")\n set context.key\(index) = userId ?? anonymousId }"
        case 3: return "rule \"r\(index)\" { when exists(properties.sku)\n remove properties: [debug\(index)] }"
        default: return "rule \"r\(index)\" { when properties.currency in [\"EUR\", \"USD\"]\n copy properties.price to properties.amount\(index) }"
        }
    }.joined(separator: "\n")
}

private func sampleEvent() -> Event {
    Event(type: .track, anonymousId: RandomIdentifier.uuidString(lowercase: true), userId: "user-1", event: "Product Viewed",
          properties: ["sku": "SHOE-123", "price": 19.99, "quantity": 2, "in_stock": true, "currency": "EUR"],
          context: ["library": ["name": "metarouter-swift", "version": "0.1.0"], "app": ["name": "bench"]])
}

/// The encoded bytes of a typical track event (five properties, default context).
private func sampleEventPayload() -> [UInt8] {
    var event = Event(type: .track, anonymousId: RandomIdentifier.uuidString(lowercase: true), event: "Product Viewed",
                      properties: ["sku": "SHOE-123", "price": 19.99, "quantity": 2, "in_stock": true, "category": "footwear"],
                      context: ["library": ["name": "metarouter-swift", "version": "0.1.0"], "app": ["name": "bench", "version": "1.0", "build": "1"],
                                "os": ["name": "Linux", "version": "6.1.0"], "device": ["type": "server", "model": "x86_64"],
                                "locale": "en_US", "timezone": "Etc/UTC"])
    event.writeKey = "0123456789abcdef0123456789abcdef"
    return event.jsonBytes()
}

private func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
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

    // Bytes on the wire per event: a track with five properties and the default context, in a
    // batch of 100 (envelope and sentAt included).
    Benchmark(
        "wire bytes per event, batch of 100",
        configuration: .init(metrics: [.custom("bytes per event", useScalingFactor: false)], maxIterations: 1)
    ) { benchmark in
        let capture = CapturingDestination()
        let client = timelineClient(capture: capture)
        let properties = fiveProperties()
        for _ in 0..<100 { client.track("Product Viewed", properties: properties) }
        runBlocking { await client.settle() }
        let format = MetaRouterBatchFormat(writeKey: "0123456789abcdef0123456789abcdef")
        let queued = capture.events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: format.encode($0)) }
        let body = format.body(for: queued, sentAt: Date())
        benchmark.measurement(.custom("bytes per event", useScalingFactor: false), body.count / max(1, queued.count))
    }

    // The disk log: bytes written per byte of event payload over 100k events, acknowledged in
    // batches of 100 and committed every 20 events (one executor drain cycle).
    Benchmark(
        "disk log write amplification, 100k events",
        configuration: .init(metrics: [.custom("written / payload ×1000", useScalingFactor: false)], maxIterations: 1)
    ) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let store = try? DiskEventStore(options: DiskEventStore.Options(directory: directory), now: Date()) else { return }
        let payload = sampleEventPayload()
        var payloadBytes = 0
        for index in 0..<100_000 {
            _ = store.append(QueuedEvent(messageId: MessageID.make(at: Date()), timestamp: Date(), payload: payload))
            payloadBytes += payload.count
            if index % 20 == 19 { store.commit() }
            if index % 100 == 99, let batch = store.nextBatch(maxCount: 100, maxBytes: .max) { store.acknowledge(batch) }
        }
        store.commit()
        benchmark.measurement(.custom("written / payload ×1000", useScalingFactor: false), store.bytesWritten * 1000 / payloadBytes)
    }

    // Executor cost of the disk log per event: append plus a grouped commit every 20 events.
    Benchmark("disk log append + grouped commit", configuration: .init(scalingFactor: .kilo, maxIterations: 200)) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let store = try? DiskEventStore(options: DiskEventStore.Options(directory: directory), now: Date()) else { return }
        let payload = sampleEventPayload()
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            _ = store.append(QueuedEvent(messageId: "1795306645877-2EF92BC2-FC1E-4573-99EC-74F03062938A", timestamp: Date(), payload: payload))
            if index % 20 == 19 { store.commit() }
            if index % 100 == 99, let batch = store.nextBatch(maxCount: 100, maxBytes: .max) { store.acknowledge(batch) }
        }
        benchmark.stopMeasurement()
    }

    // Opening a log that holds 10k undelivered events (read, verify, rewrite).
    Benchmark("disk log recovery, 10k events", configuration: .init(maxIterations: 20)) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = sampleEventPayload()
        do {
            guard let store = try? DiskEventStore(options: DiskEventStore.Options(directory: directory), now: Date()) else { return }
            for _ in 0..<10_000 { _ = store.append(QueuedEvent(messageId: MessageID.make(at: Date()), timestamp: Date(), payload: payload)) }
            store.sync()
        }
        benchmark.startMeasurement()
        let reopened = try? DiskEventStore(options: DiskEventStore.Options(directory: directory), now: Date())
        benchmark.stopMeasurement()
        blackHole(reopened?.count)
    }

    // Transform rules: one compiled condition on a typical event.
    Benchmark("rules: one condition", configuration: .init(scalingFactor: .mega, maxIterations: 20)) { benchmark in
        let event = sampleEvent()
        // A rule with a condition and no actions: the cost is the condition (and the rule loop).
        let rules = (try? RuleTextParser.parse("rule { when event = \"Product Viewed\" and properties.price > 10 }")) ?? RuleSet(rules: [])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(rules.apply(to: event)) }
        benchmark.stopMeasurement()
    }

    // Transform rules: a 20-rule set (conditions, sets, moves, removes) on a typical event.
    Benchmark("rules: 20-rule set", configuration: .init(scalingFactor: .kilo, maxIterations: 200)) { benchmark in
        let event = sampleEvent()
        let rules = (try? RuleTextParser.parse(twentyRules())) ?? RuleSet(rules: [])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(rules.apply(to: event)) }
        benchmark.stopMeasurement()
    }

    // Transform rules: parsing and compiling 100 rules.
    Benchmark("rules: compile 100 rules", configuration: .init(maxIterations: 50)) { benchmark in
        let text = (0..<5).map { _ in twentyRules() }.joined(separator: "\n")
        benchmark.startMeasurement()
        blackHole(try? RuleTextParser.parse(text))
        benchmark.stopMeasurement()
    }

    // Events per second delivered over real HTTP to a loopback collector, batches of 100.
    Benchmark("delivery over loopback HTTP, batches of 100", configuration: .init(scalingFactor: .kilo, maxIterations: 10)) { benchmark in
        guard let collector = try? LoopbackCollector() else { return }
        defer { collector.stop() }
        var options = MetaRouterDestination.Options(ingestionHost: collector.url)
        options.flushAt = 100
        options.maxQueueEvents = 100_000
        let destination = MetaRouterDestination(options: options)
        let configuration = Configuration(writeKey: "bench", logger: Logger(minimumLevel: .error))
        let client = AnalyticsClient(configuration: configuration, plugins: [IdentityPlugin(), ContextPlugin(), destination])
        runBlocking { await client.settle() }
        guard let uploader = destination.uploader else { return }
        let properties = fiveProperties()
        let total = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.track("Product Viewed", properties: properties)
        }
        runBlocking {
            while uploader.stats.sent < total {
                await client.flushAndWait()
            }
        }
        benchmark.stopMeasurement()
        runBlocking { await client.shutdown() }
    }
}
