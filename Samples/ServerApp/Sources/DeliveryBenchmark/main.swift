import Foundation
import MetaRouter
import MetaRouterAsyncHTTPClient
import ServerAppKit

// DeliveryBenchmark --ingestion-host URL --transport default|async-http-client
//                   [--events N] [--disk]
// Tracks N events (five properties, one of them a sequence number) through an instance made
// with the default options but the chosen transport, waits until the host has accepted them
// all, and prints one JSON line: events/s from the first call to the last acknowledgement,
// retries and drops. `LoadTest/delivery.py` runs it against the counting collector, which
// checks order and duplicates.

guard let host = CommandLineOption.value("--ingestion-host").flatMap(URL.init(string:)) else {
    FileHandle.standardError.write(Data("usage: DeliveryBenchmark --ingestion-host URL --transport default|async-http-client [--events N] [--disk]\n".utf8))
    exit(2)
}
let transportName = CommandLineOption.value("--transport") ?? "default"
let total = max(1, Int(CommandLineOption.value("--events") ?? "") ?? 100_000)
let disk = CommandLine.arguments.contains("--disk")
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-benchmark-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }

var options = InitOptions(writeKey: "bench-\(transportName)-\(UUID().uuidString.prefix(8))", ingestionHost: host)
options.storageDirectory = directory
options.maxQueueEvents = total
options.maxPendingEvents = total
options.maxDiskEvents = disk ? total : 0
options.maxDiskBytes = 1 << 30
options.trackLifecycleEvents = false
switch transportName {
case "default": break
case "async-http-client": options.transport = AsyncHTTPClientTransport()
default:
    FileHandle.standardError.write(Data("unknown transport \(transportName)\n".utf8))
    exit(2)
}
let client = MetaRouter.Analytics.instance(for: options)

let start = DispatchTime.now().uptimeNanoseconds
for index in 0..<total {
    client.track("Product Viewed", properties: [
        "seq": index, "sku": "SHOE-\(index)", "price": 19.99, "in_stock": true, "category": "footwear",
    ])
}
var info = await client.getDebugInfo()
let deadline = start + 600 * 1_000_000_000
while info.stats.sent + info.stats.dropped.values.reduce(0, +) < total, DispatchTime.now().uptimeNanoseconds < deadline {
    await client.flushAndWait()
    info = await client.getDebugInfo()
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
await client.shutdown()

let report: [String: Any] = [
    "transport": transportName, "disk": disk, "events": total, "sent": info.stats.sent,
    "seconds": seconds, "events_per_s": Double(info.stats.sent) / seconds,
    "retries": info.stats.retries, "dropped": info.stats.dropped.values.reduce(0, +),
]
let line = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
FileHandle.standardOutput.write(line + Data("\n".utf8))
