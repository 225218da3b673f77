import CollectorProcess
import Foundation
import MetaRouter

// Peak resident memory of a process that tracks 100,000 events unpaced and delivers them, the
// shape issue #53's side-by-side harness measured: an app's process (this one, nothing else in
// it), `Analytics.instance(for:)` with default options but room for every event (queue, disk
// log and ingress), batches of 100, and a collector in another process. Each call builds a fresh
// six-key dictionary holding a nested object, as an app's call sites do.
//
// Prints the resident memory once the instance is running and before the first call (what the
// process holds anyway), the peak over the whole process (`VmHWM`), the delivery rate, the
// calls still waiting for the executor when the last call returned, and what the calls cost
// their thread: the median and 99th percentile of a call (timed call by call, the dictionary
// built before the clock starts) and the page faults the thread took during them.
//
// Usage: PeakProbe collect                       (a loopback collector; prints "URL <url>",
//                                                 runs until its standard input closes)
//        PeakProbe <ingestionHost> <storageDirectory> on|off   (disk log on or off)
let arguments = CommandLine.arguments

if arguments.count == 2, arguments[1] == "collect" {
    guard let collector = try? NativeCollector() else {
        FileHandle.standardError.write(Data("PeakProbe: the collector could not listen\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("URL \(collector.url.absoluteString)\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    collector.stop()
    exit(0)
}

guard arguments.count == 4, ["on", "off"].contains(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: PeakProbe collect | PeakProbe <ingestionHost> <storageDirectory> on|off\n".utf8))
    exit(2)
}

/// A `kB` figure of `/proc/self/status` (`VmRSS`, `VmHWM`), in megabytes; 0 where there is none.
func statusMegabytes(_ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

/// Counts the events the executor has started on: the first plugin of the timeline.
final class StartedEvents: Plugin, @unchecked Sendable {  // `startedCount` is only touched under `lock`
    let type = PluginType.before
    private let lock = NSLock()
    private var startedCount = 0

    var count: Int { lock.withLock { startedCount } }

    func execute(event: consuming Event) -> Event? {
        lock.withLock { startedCount += 1 }
        return event
    }
}

let total = 100_000
let started = StartedEvents()
var options = InitOptions(writeKey: "peak-probe", ingestionHost: arguments[1])
options.storageDirectory = URL(fileURLWithPath: arguments[2])
options.flushAt = 100
options.maxPendingEvents = total
options.maxQueueEvents = total
options.maxDiskEvents = arguments[3] == "on" ? total : 0
options.plugins = { [started] }
let analytics = Analytics.instance(for: options)
await analytics.flushAndWait()
let baseline = statusMegabytes("VmRSS")

/// Page faults the calling thread has taken so far (0 where the count per thread is not available).
func threadPageFaults() -> Int {
    #if os(Linux)
    var usage = rusage()
    guard getrusage(__rusage_who_t(1), &usage) == 0 else { return 0 }  // 1: RUSAGE_THREAD
    return usage.ru_minflt + usage.ru_majflt
    #else
    return 0
    #endif
}

var durations = [UInt64](repeating: 0, count: total)
let faultsBefore = threadPageFaults()
let start = DispatchTime.now().uptimeNanoseconds
for index in 0..<total {
    let properties: [String: Any] = [
        "sku": "SHOE-\(index)", "price": 19.99, "quantity": index % 7, "in_stock": true, "category": "footwear",
        "variant": ["size": 42, "color": "red"] as [String: Any],
    ]
    let called = DispatchTime.now().uptimeNanoseconds
    analytics.track("Product Viewed", properties: properties)
    durations[index] = DispatchTime.now().uptimeNanoseconds - called
}
let callerFaults = threadPageFaults() - faultsBefore
durations.sort()
let waiting = total - started.count
var stats = await analytics.getDebugInfo().stats
while stats.sent + stats.dropped.values.reduce(0, +) < total {
    await analytics.flushAndWait()
    stats = await analytics.getDebugInfo().stats
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
let peak = statusMegabytes("VmHWM")
_ = await analytics.shutdown(timeout: 1)
print(String(
    format: "baseline %.1f MB; peak %.1f MB; %.0f k events/s; %d sent; %.1f k calls waiting after the last call; track p50 %d ns, p99 %d ns; %d page faults on the calling thread",
    baseline, peak, Double(stats.sent) / seconds / 1000, stats.sent, Double(waiting) / 1000, Int(durations[total / 2]), Int(durations[total * 99 / 100]),
    callerFaults))
