import Foundation
import MetaRouter
import MetaRouterTesting

// The chaos modes of the child process:
//
//   MetaRouterCrashChild chaos <directory> <host> <seed> <first index>
//       three tenants (write keys `chaos-0`…`chaos-2`, each with its directory under
//       <directory>), driven by a seeded random walk until killed: bursts of tracks to a
//       tenant, a tenant shut down and made again (an eviction), flushes. On seeds drawn so,
//       calls go through `shared` before `initialize(with:)` binds it to `chaos-0`. After each
//       burst is through the pipeline it prints "durable <first> <last>" (numbers are global);
//       each instance it makes prints "disk <key> <true|false>" (whether its queue is on disk).
//   MetaRouterCrashChild chaosdrain <directory> <host>
//       opens the three tenants, delivers everything, prints "left <key> <queued>" for each.

let chaosTenants = 3

private func chaosInstance(_ directory: String, _ host: String, tenant: Int) async -> MetaRouter.Analytics {
    let analytics = makeInstance(directory: directory + "/chaos-\(tenant)", host: host, writeKey: "chaos-\(tenant)")
    say("disk chaos-\(tenant) \(await analytics.getDebugInfo().queueOnDisk)")
    return analytics
}

func runChaosMode(directory: String, host: String, seed: UInt64, first: Int) async {
    var random = SeededRandom(seed: seed)
    var next = first
    var tenants: [MetaRouter.Analytics] = []
    if random.next(2) == 0 {
        let kept = 1 + random.next(300)
        for _ in 0..<kept {
            MetaRouter.Analytics.shared.track("Chaos", properties: ["n": next])
            next += 1
        }
        MetaRouter.Analytics.initialize(with: makeOptions(directory: directory + "/chaos-0", host: host, writeKey: "chaos-0"))
    }
    for tenant in 0..<chaosTenants { tenants.append(await chaosInstance(directory, host, tenant: tenant)) }
    if next > first {
        await tenants[0].engine.settle()
        await tenants[0].engine.settle()
        say("durable \(first) \(next - 1)")
    }
    while true {
        let tenant = random.next(chaosTenants)
        switch random.next(10) {
        case 0:
            _ = await tenants[tenant].shutdown(timeout: 2)
            tenants[tenant] = await chaosInstance(directory, host, tenant: tenant)
        case 1:
            tenants[tenant].flush()
        default:
            let start = next
            for _ in 0..<(1 + random.next(200)) {
                tenants[tenant].track("Chaos", properties: ["n": next])
                next += 1
            }
            await tenants[tenant].engine.settle()
            await tenants[tenant].engine.settle()
            say("durable \(start) \(next - 1)")
        }
    }
}

func runChaosDrainMode(directory: String, host: String) async {
    for tenant in 0..<chaosTenants {
        let analytics = await chaosInstance(directory, host, tenant: tenant)
        let deadline = Date().addingTimeInterval(30)
        var info = await analytics.getDebugInfo()
        while info.queueLength > 0, Date() < deadline {
            await analytics.flushAndWait()
            info = await analytics.getDebugInfo()
        }
        _ = await analytics.shutdown(timeout: 5)
        say("left chaos-\(tenant) \(info.queueLength)")
    }
}
