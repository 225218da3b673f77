import Foundation
import MetaRouter

// A child process for the crash and shutdown tests.
//
//   MetaRouterCrashChild track <directory> <host> <first index>
//       tracks numbered events until killed; after each group it waits one drain cycle and
//       prints "durable <index>": every event up to that index has reached the event log.
//   MetaRouterCrashChild load <directory> <host> <first index>
//       tracks numbered events at 2,000 per second until killed; after every 10 it prints
//       "<last index> <monotonic ns>", the moment track() had returned for them.
//   MetaRouterCrashChild drain <directory> <host>
//       opens the same log, delivers everything, prints "drained <count>" and exits.
//   MetaRouterCrashChild serve <directory> <host> <count>
//       a server with two instances (two write keys), each with lifecycle tracking and SIGTERM
//       handling: each queues <count> events without sending them (the second numbers its
//       events from 1000), prints "ready <count>", and waits for a signal.
//   crash, report, off: see CrashModes.swift; filelimit: see FileLimitMode.swift; fork: see
//   ForkMode.swift; forkmain: see MainActorForkMode.swift; backlog, recover: see BacklogMode.swift; chaos, chaosdrain: see ChaosMode.swift; fdlimit: see DescriptorLimitMode.swift; tenants: see TenantsMode.swift.

struct StandardErrorSink: LogSink {
    func log(level: LogLevel, message: String) {
        FileHandle.standardError.write(Data("child \(level): \(message)\n".utf8))
    }
}

func makeInstance(directory: String, host: String, serving: Bool = false, writeKey: String = "crash-test-key") -> MetaRouter.Analytics {
    MetaRouter.Analytics.instance(for: makeOptions(directory: directory, host: host, serving: serving, writeKey: writeKey))
}

/// The options ``makeInstance(directory:host:serving:writeKey:)`` makes its instance with.
func makeOptions(directory: String, host: String, serving: Bool = false, writeKey: String = "crash-test-key") -> InitOptions {
    var options = InitOptions(writeKey: writeKey, ingestionHost: host, flushIntervalSeconds: serving ? 3600 : 1)
    if serving {
        options.terminateOnSignals = [SIGTERM]
        options.trackLifecycleEvents = true
    }
    options.storageDirectory = URL(fileURLWithPath: directory)
    options.keyValueStore = FileKeyValueStore(file: URL(fileURLWithPath: directory).appendingPathComponent("identity.json"))
    options.logSink = StandardErrorSink()
    options.requestTimeoutSeconds = 2
    // Above what a round can track before its kill, so no event is evicted by the queue cap.
    options.maxDiskEvents = 200_000
    return options
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    say("usage: MetaRouterCrashChild track|load|drain|serve|crash|report|off|filelimit <directory> <host> [argument]")
    exit(2)
}
#if os(Linux)
if arguments[1] == "forkmain" {
    // Before any `await` of the top-level code: see MainActorForkMode.swift.
    let forking = prepareMainActorFork(directory: arguments[2], host: arguments[3])
    let child = fork()
    if child == 0 { await runMainActorForkChild(forking) }
    await finishMainActorFork(forking, child: child)
    exit(0)
}
#endif
if ["crash", "off"].contains(arguments[1]) {
    runCrashMode(arguments[1], arguments: arguments)
    exit(0)
}
if arguments[1] == "filelimit" {
    runFileLimitMode(directory: arguments[2], limit: Int(arguments.count > 4 ? arguments[4] : "") ?? 40_000)
    exit(0)
}
if arguments[1] == "tenants" {
    await runTenantsMode(directory: arguments[2], host: arguments[3], count: Int(arguments.count > 4 ? arguments[4] : "") ?? 100)
    exit(0)
}
if arguments[1] == "fdlimit" {
    await runDescriptorLimitMode(directory: arguments[2], host: arguments[3])
    exit(0)
}
if arguments[1] == "fork" {
    await runForkMode(directory: arguments[2], host: arguments[3], from: arguments.count > 4 ? arguments[4] : "main")
    exit(0)
}
if arguments[1] == "chaos" {
    let seed = UInt64(arguments.count > 4 ? arguments[4] : "") ?? 1
    await runChaosMode(directory: arguments[2], host: arguments[3], seed: seed, first: Int(arguments.count > 5 ? arguments[5] : "") ?? 0)
    exit(0)
}
if arguments[1] == "chaosdrain" {
    await runChaosDrainMode(directory: arguments[2], host: arguments[3])
    exit(0)
}
if arguments[1] == "backlog" || arguments[1] == "recover" {
    let count = Int(arguments.count > 4 ? arguments[4] : "") ?? 200_000
    if arguments[1] == "backlog" {
        await runBacklogMode(directory: arguments[2], host: arguments[3], count: count)
    } else {
        await runRecoverMode(directory: arguments[2], host: arguments[3], count: count)
    }
    exit(0)
}
if arguments[1] == "sharedbind" {
    await runSharedBindingMode(directory: arguments[2], host: arguments[3], calls: Int(arguments.count > 4 ? arguments[4] : "") ?? 5_000)
    exit(0)
}
if arguments[1] == "shutdownrace" {
    await runShutdownRaceMode(directory: arguments[2], host: arguments[3], rounds: Int(arguments.count > 4 ? arguments[4] : "") ?? 1_000)
    exit(0)
}
if arguments[1] == "keptrace" {
    await runKeptRaceMode(directory: arguments[2], host: arguments[3], rounds: Int(arguments.count > 4 ? arguments[4] : "") ?? 300)
    exit(0)
}
if arguments[1] == "report" {
    await reportCrashes(directory: arguments[2], host: arguments[3])
    exit(0)
}
let analytics = makeInstance(directory: arguments[2], host: arguments[3], serving: arguments[1] == "serve")

switch arguments[1] {
case "track":
    var index = Int(arguments.count > 4 ? arguments[4] : "0") ?? 0
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        for _ in 0..<20 {
            analytics.track("Crash Test", properties: ["n": index])
            index += 1
        }
        // One drain cycle: the events run through the timeline, then the log commit they
        // scheduled runs.
        await analytics.engine.settle()
        await analytics.engine.settle()
        say("durable \(index - 1)")
    }
case "load":
    let first = Int(arguments.count > 4 ? arguments[4] : "0") ?? 0
    var index = first
    let start = DispatchTime.now().uptimeNanoseconds
    while DispatchTime.now().uptimeNanoseconds - start < 30_000_000_000 {
        for _ in 0..<10 {
            analytics.track("Load Test", properties: ["n": index] as [String: Any])
            index += 1
        }
        let now = DispatchTime.now().uptimeNanoseconds
        say("\(index - 1) \(now)")
        // Paced at 2,000 events/s: the next group is due when its share of time has passed.
        let due = start + UInt64(index - first) * 500_000
        if due > now { usleep(UInt32((due - now) / 1_000)) }
    }
case "drain":
    let deadline = Date().addingTimeInterval(30)
    var info = await analytics.getDebugInfo()
    while info.queueLength > 0, Date() < deadline {
        await analytics.flushAndWait()
        try? await Task.sleep(nanoseconds: 20_000_000)
        info = await analytics.getDebugInfo()
    }
    await analytics.shutdown()
    say("drained \(info.stats.sent) remaining \(info.queueLength)")
case "serve":
    let count = Int(arguments.count > 4 ? arguments[4] : "100") ?? 100
    // A second instance (another tenant) that asked for SIGTERM too: both must drain.
    let second = makeInstance(directory: arguments[2] + "/second", host: arguments[3], serving: true, writeKey: "crash-test-key-2")
    for index in 0..<count {
        analytics.track("Served", properties: ["n": index])
        second.track("Served", properties: ["n": 1_000 + index])
    }
    await analytics.engine.settle()
    await second.engine.settle()
    say("ready \(count)")
    while true { try? await Task.sleep(nanoseconds: 1_000_000_000) }
default:
    say("unknown mode \(arguments[1])")
    exit(2)
}
