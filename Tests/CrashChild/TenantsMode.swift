import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

// The many-tenants mode of the child process:
//
//   MetaRouterCrashChild tenants <directory> <host> <count>
//       under a descriptor limit of 1,024 (RLIMIT_NOFILE), creates <count> instances (one write key each, one storage directory each under
//       <directory>), tracks 2 events on each, flushes them all and shuts them all down; prints
//       "tenants <count> sent <events sent> peak <most descriptors one instance held>" and how
//       the shutdown went ("shutdown true|false").

func runTenantsMode(directory: String, host: String, count: Int) async {
    #if os(Linux)
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = min(limit.rlim_max, 1024)
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    #endif
    var instances: [MetaRouter.Analytics] = []
    instances.reserveCapacity(count)
    for index in 0..<count {
        var options = InitOptions(writeKey: "tenant-\(index)", ingestionHost: host, flushIntervalSeconds: 3600)
        options.storageDirectory = URL(fileURLWithPath: directory).appendingPathComponent("t\(index)")
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = StandardErrorSink()
        options.identityMode = .perCall
        options.trackLifecycleEvents = false
        options.requestTimeoutSeconds = 10
        let analytics = MetaRouter.Analytics.instance(for: options)
        for event in 0..<2 {
            analytics.track("Tenant Event", properties: ["tenant": index, "n": event], options: EventOptions(userId: "u\(index)"))
        }
        instances.append(analytics)
    }
    say("created \(count)")
    var sent = 0
    var peak = 0
    await withTaskGroup(of: (Int, Int).self) { group in
        for analytics in instances {
            group.addTask {
                await analytics.flushAndWait()
                let info = await analytics.getDebugInfo()
                return (info.stats.sent, info.openDescriptors)
            }
        }
        for await (delivered, held) in group {
            sent += delivered
            peak = max(peak, held)
        }
    }
    say("tenants \(count) sent \(sent) peak \(peak)")
    let finished = await MetaRouter.Analytics.shutdownAll(timeout: 60)
    say("shutdown \(finished)")
}
