import Foundation
import MetaRouter

// The backlog modes of the child process:
//
//   MetaRouterCrashChild backlog <directory> <host> <count>
//       with the host down, tracks <count> events, waits until they are in the disk log,
//       prints "durable <count>" and waits to be killed.
//   MetaRouterCrashChild recover <directory> <host> <count>
//       prints "rss before <bytes>", opens the same log with the host still down, waits until
//       its queue holds <count> events and prints "rss after <bytes> queued <count>".

/// The resident set of this process, from `/proc/self/status` (0 where there is none).
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// An instance whose disk log holds a large backlog whole (256 MB).
private func backlogInstance(directory: String, host: String) -> MetaRouter.Analytics {
    var options = makeOptions(directory: directory, host: host)
    options.maxDiskBytes = 256 << 20
    options.maxDiskEvents = 1_000_000
    return MetaRouter.Analytics.instance(for: options)
}

func runBacklogMode(directory: String, host: String, count: Int) async {
    let analytics = backlogInstance(directory: directory, host: host)
    // In steps the ingress takes whole (`maxPendingEvents`), so none is dropped at the call.
    for start in stride(from: 0, to: count, by: 10_000) {
        for index in start..<min(count, start + 10_000) {
            analytics.track("Backlog", properties: ["n": index, "pad": "0123456789abcdef0123456789abcdef"])
        }
        await analytics.engine.settle()
    }
    await analytics.engine.settle()
    say("durable \(count)")
    while true { sleep(60) }
}

func runRecoverMode(directory: String, host: String, count: Int) async {
    say("rss before \(residentBytes())")
    let analytics = backlogInstance(directory: directory, host: host)
    let deadline = Date().addingTimeInterval(60)
    var queued = 0
    while queued < count, Date() < deadline {
        queued = await analytics.getDebugInfo().queueLength
        if queued < count { try? await Task.sleep(nanoseconds: 20_000_000) }
    }
    say("rss after \(residentBytes()) queued \(queued)")
    _ = await analytics.shutdown(timeout: 5)
}
