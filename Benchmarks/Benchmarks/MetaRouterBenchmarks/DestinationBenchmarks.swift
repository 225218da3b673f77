@preconcurrency import Benchmark
import Foundation
@_spi(Benchmarks) import MetaRouter

/// A format as an integrator writes one: each event's name, ids and properties in a body of
/// its own shape, POSTed with the batch's id.
/// The thread CPU time it spends in `request(for:)` is added to `FormatTime`, so the engine's
/// own share can be told from the format's.
private struct VendorFormat: DeliveryFormat {
    func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        let start = FormatTime.threadNanoseconds()
        defer { FormatTime.add(FormatTime.threadNanoseconds() - start) }
        let events: [JSON] = batch.events.map { event in
            ["event_type": event["event"] ?? .null, "insert_id": event["messageId"] ?? .null,
             "user_id": event["userId"] ?? event["anonymousId"] ?? .null, "time": event["timestamp"] ?? .null,
             "event_properties": event["properties"] ?? [:]]
        }
        // `description` is the SDK's own compact writer; `JSONEncoder` costs about ten times more.
        let body: JSON = ["api_key": "bench", "events": .array(events)]
        return DeliveryRequest(url: URL(string: "https://vendor.invalid/batch")!, headers: ["X-Batch": batch.id], body: Data(body.description.utf8))
    }

    func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        (200..<300).contains(response.status) ? .delivered : .retry(after: nil)
    }
}

/// A format that sends the events in this SDK's own shape, as a second Segment-compatible
/// endpoint takes them: the same work as the built-in destination's body, without a vendor's
/// mapping.
private struct SameShapeFormat: DeliveryFormat {
    func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        let start = FormatTime.threadNanoseconds()
        defer { FormatTime.add(FormatTime.threadNanoseconds() - start) }
        let body: JSON = ["batch": .array(batch.events)]
        return DeliveryRequest(url: URL(string: "https://second.invalid/v1/batch")!, headers: ["Idempotency-Key": batch.id], body: Data(body.description.utf8))
    }

    func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        (200..<300).contains(response.status) ? .delivered : .retry(after: nil)
    }
}

/// The CPU time formats spent making requests, summed over every thread.
private enum FormatTime {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var total = 0  // guarded by `lock`

    static func threadNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    static func add(_ nanoseconds: Int) {
        lock.lock()
        total += nanoseconds
        lock.unlock()
    }

    /// The total so far, and zero after.
    static func take() -> Int {
        lock.lock()
        defer { total = 0; lock.unlock() }
        return total
    }
}

/// What a second durable destination costs per event (issue 65's budget: at most 1.5 times what
/// the built-in one costs). Four instances in turn, each with default options, the disk log on
/// and an in-memory transport answering 200: no delivery, the built-in destination, the
/// built-in one plus a `DurableDestination` with a vendor's format, and the built-in one plus a
/// `DurableDestination` sending this SDK's own shape. 50,000 `track` calls each, in runs of
/// 1,000 with a `flushAndWait()` after each: the steady state of an app whose pipeline keeps up.
/// (Unpaced, the calls outrun a destination whose format writes its requests on a queue of its
/// own: one batch in flight, each needing that queue's thread, which waits for a core while the
/// caller and the executor hold both; its backlog passes its 10,000-event cap, past which events
/// are dropped.) The process's CPU time per event over the span from the first call to the last
/// event sent. Reports each, each second destination's share over the built-in's (`×100`), and
/// the events any round dropped, which must be 0 for the figures to count.
func registerDestinationBenchmarks() {
    Benchmark(
        "a second durable destination: CPU per event against the built-in one's",
        configuration: .init(
            metrics: [
                .custom("CPU ns per event, no delivery", useScalingFactor: false),
                .custom("CPU ns per event, built-in", useScalingFactor: false),
                .custom("CPU ns per event, built-in + own", useScalingFactor: false),
                .custom("own / built-in x100", useScalingFactor: false),
                .custom("CPU ns per event in the format", useScalingFactor: false),
                .custom("own without the format / built-in x100", useScalingFactor: false),
                .custom("CPU ns per event, built-in + own in the same shape", useScalingFactor: false),
                .custom("own in the same shape / built-in x100", useScalingFactor: false),
                .custom("CPU ns per event in the same-shape format", useScalingFactor: false),
                .custom("events dropped (must be 0)", useScalingFactor: false),
            ], maxIterations: 5)
    ) { benchmark in
        let (none, noneDropped) = destinationRound(delivery: false, own: false)
        let (builtIn, builtInDropped) = destinationRound(delivery: true, own: false)
        _ = FormatTime.take()
        let (both, bothDropped) = destinationRound(delivery: true, own: true)
        let format = FormatTime.take() / 50_000
        let (sameShape, sameShapeDropped) = destinationRound(delivery: true, own: true, format: SameShapeFormat())
        let sameShapeFormat = FormatTime.take() / 50_000
        benchmark.measurement(.custom("events dropped (must be 0)", useScalingFactor: false), noneDropped + builtInDropped + bothDropped + sameShapeDropped)
        benchmark.measurement(.custom("CPU ns per event, no delivery", useScalingFactor: false), none)
        benchmark.measurement(.custom("CPU ns per event, built-in", useScalingFactor: false), builtIn)
        benchmark.measurement(.custom("CPU ns per event, built-in + own", useScalingFactor: false), both)
        benchmark.measurement(.custom("own / built-in x100", useScalingFactor: false), (both - builtIn) * 100 / max(1, builtIn - none))
        benchmark.measurement(.custom("CPU ns per event in the format", useScalingFactor: false), format)
        benchmark.measurement(
            .custom("own without the format / built-in x100", useScalingFactor: false), (both - builtIn - format) * 100 / max(1, builtIn - none))
        benchmark.measurement(.custom("CPU ns per event, built-in + own in the same shape", useScalingFactor: false), sameShape)
        benchmark.measurement(
            .custom("own in the same shape / built-in x100", useScalingFactor: false), (sameShape - builtIn) * 100 / max(1, builtIn - none))
        benchmark.measurement(.custom("CPU ns per event in the same-shape format", useScalingFactor: false), sameShapeFormat)
    }
}

/// CPU nanoseconds per event for one instance of the given shape, and the events its
/// destinations dropped.
private func destinationRound(delivery: Bool, own: Bool, format: any DeliveryFormat = VendorFormat()) -> (cpu: Int, dropped: Int) {
    let total = 50_000
    let directory = benchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var options = InitOptions(writeKey: "bench-destinations-\(UUID())", ingestionHost: "https://bench.invalid")
    options.storageDirectory = directory
    options.transport = InMemoryTransport()
    if !delivery { options.defaultPlugins.remove(.delivery) }
    if own {
        options.plugins = { [BenchmarkPipeline.durableDestination(key: "Vendor", format: format, transport: InMemoryTransport())] }
    }
    let analytics = MetaRouter.Analytics.instance(for: options)
    runBlocking { await analytics.flushAndWait() }
    let before = ProcessUsage.now()
    for index in 0..<total {
        analytics.track("Product Viewed", properties: ["sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true])
        if (index + 1) % 1_000 == 0 { runBlocking { await analytics.flushAndWait() } }
    }
    let dropped = runBlocking { () -> Int in
        while true {
            let info = await analytics.getDebugInfo()
            // `stats.dropped` has the built-in destination's drops and those before any
            // destination (`overflow`: the ingress full), which the second never sees.
            let builtInDropped = info.stats.dropped.values.reduce(0, +)
            let beforeDelivery = info.stats.dropped[.overflow] ?? 0
            let ownDropped = info.destinations["Vendor"].map { $0.dropped.values.reduce(0, +) } ?? 0
            let builtInDone = !delivery || info.stats.sent + builtInDropped >= total
            let ownDone = !own || (info.destinations["Vendor"]?.sent ?? 0) + ownDropped + beforeDelivery >= total
            if builtInDone && ownDone { return builtInDropped + ownDropped }
            await analytics.flushAndWait()
        }
    }
    let used = ProcessUsage.now().since(before)
    runBlocking { _ = await analytics.shutdown() }
    return (Int(used.cpuSeconds * 1e9 / Double(total)), dropped)
}
