@preconcurrency import Benchmark
import Foundation
@_spi(Benchmarks) import MetaRouter
import MetaRouterDelivery

/// Memory per queued event, disk log on and off.
func registerMemoryBenchmarks() {
    // Resident memory per queued event: 100,000 track calls queued behind a host that
    // answers 503 (one request in flight at most, the retry waiting), the process's RSS
    // before and after, divided by the events queued. Disk log on and off. The producer lets
    // the executor catch up every 1,000 calls, so the figure is the queue's own, not that of
    // 100,000 calls waiting at the ingress at once (which `maxPendingEvents` bounds).
    for disk in [true, false] {
        Benchmark(
            "resident bytes per queued event, 100k queued, disk log \(disk ? "on" : "off")",
            configuration: .init(
                metrics: [.custom("bytes per event", useScalingFactor: false)], warmupIterations: 0, maxIterations: 3)
        ) { benchmark in
            let total = 100_000
            let directory = benchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (client, destination) = deliveryClient(
                transport: InMemoryTransport(failureRate: 1), disk: disk, directory: directory)
            runBlocking { await client.settle() }
            guard let stats = benchmarkStatsReader(of: destination) else { return }
            let before = residentMemoryBytes()
            for index in 0..<total {
                client.track("Product Viewed", properties: freshProperties(index))
                if index % 1000 == 999 { runBlocking { await client.settle() } }
            }
            runBlocking {
                while stats().enqueued < total { await client.settle() }
            }
            let after = residentMemoryBytes()
            benchmark.measurement(.custom("bytes per event", useScalingFactor: false), max(0, after - before) / total)
            runBlocking { _ = await client.shutdown(timeout: 1) }
        }
    }
}

/// Five properties in a dictionary of their own, as an app's call sites build them.
private func freshProperties(_ index: Int) -> [String: Any] {
    ["sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear"]
}

/// The process's resident set, from `/proc/self/statm` (0 where there is none), after
/// glibc's `malloc_trim` has handed freed memory back, so memory an earlier round freed does
/// not hide this round's growth.
func residentMemoryBytes() -> Int {
    trimMalloc()
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Hands the memory glibc's allocator holds free back to the system (`malloc_trim`; nothing
/// where there is no such function).
func trimMalloc() {
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
