import Foundation
import Logging
import MetaRouter
import MetaRouterLogging
import MetaRouterServiceLifecycle
import Synchronization
import Testing

/// What `AnalyticsTenants` does with the events of tenants it evicts while the host fails, and
/// with the logs an earlier run left: every accepted event is written down, then delivered —
/// when the tenant returns or at the next `start()`, which shuts the tenants it delivered for
/// down again. Real instances, files and HTTP on 127.0.0.1; write keys of each test's own.
@Suite struct TenantDurabilityTests {
    /// Options under `root` delivering to `host`, the SDK's lines going to `logs`.
    static func options(root: URL, host: TenantLimitsTests.Host, logs: LoggingTests.Capture) -> @Sendable (String) -> InitOptions {
        let base = TenantLimitsTests.options(root: root, host: host)
        return { writeKey in
            var options = base(writeKey)
            options.log(to: logs.logger(level: .info))
            return options
        }
    }

    /// The `sdk.shutdown_undurable` lines (the SDK's name is the `sdk` metadata in swift-log).
    static func undurable(_ logs: LoggingTests.Capture) -> Int {
        logs.records.withLock { $0.filter { $0.metadata["sdk"] == "sdk.shutdown_undurable" }.count }
    }

    @Test func tenantsEvictedWhileTheHostFailsLoseNothing() async throws {
        let server = try await TestServer.start()
        server.failingWith = 500
        let directory = try TestDirectory()
        defer { directory.remove() }
        let logs = LoggingTests.Capture()
        let host = TenantLimitsTests.Host(server.baseURL.absoluteString)
        let keys = (0..<12).map { "failing-host-tenant-\($0)" }
        var limits = TenantLimits()
        limits.maxLiveTenants = 4
        limits.diskBudgetBytes = 4 << 20
        limits.evictionTimeout = 1
        let tenants = AnalyticsTenants(policy: .allowList(keys), limits: limits, options: Self.options(root: directory.url, host: host, logs: logs))

        // Three rounds over twelve tenants, four live at once: every admission past the fourth
        // evicts one, while the host answers 500, and the evicted come back in the next round.
        var tracked: Set<String> = []
        var memoryOnly: [String] = []
        for round in 0..<3 {
            for key in keys {
                let analytics = try await tenants.instance(for: key)
                if await analytics.getDebugInfo().queueOnDisk == false { memoryOnly.append("\(key) in round \(round)") }
                for index in 0..<20 {
                    let name = "\(key) \(round)-\(index)"
                    analytics.track(name, properties: nil, options: EventOptions(userId: "user"))
                    tracked.insert(name)
                }
            }
        }
        #expect(memoryOnly.isEmpty, "admitted without a disk log: \(memoryOnly)")
        #expect(tenants.memoryOnlyAdmissions == 0)
        #expect(tenants.diskBytes > 0 && tenants.diskBytes < limits.diskBudgetBytes)
        await tenants.drain(timeout: 5)
        #expect(Self.undurable(logs) == 0, "accepted events neither delivered nor written down")

        // The host recovers; the next run's start delivers every tenant's log.
        server.failingWith = nil
        let next = AnalyticsTenants(policy: .allowList(keys), limits: limits, options: Self.options(root: directory.url, host: host, logs: logs))
        await next.start()
        #expect(await eventually { Set(server.accepted) == tracked }, "\(tracked.subtracting(server.accepted).count) of \(tracked.count) never delivered")
        #expect(next.instances.isEmpty, "start shuts the tenants it delivered for down again")
        await next.drain(timeout: 5)
        #expect(Self.undurable(logs) == 0)
        await server.stop()
    }

    @Test(arguments: [false, true]) func aRestartDeliversWhatEvictedAndUnlistedTenantsLeft(resolver: Bool) async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let logs = LoggingTests.Capture()
        let prefix = resolver ? "restart-resolved-" : "restart-listed-"
        let keys = (0..<5).map { "\(prefix)\($0)" }
        let policy: TenantPolicy = resolver ? .resolver { $0.hasPrefix(prefix) } : .allowList(keys)
        var limits = TenantLimits()
        limits.maxLiveTenants = 2
        limits.evictionTimeout = 1
        let down = TenantLimitsTests.Host(try TenantLimitsTests.deadHost())
        let first = AnalyticsTenants(policy: policy, limits: limits, known: [keys[0]], options: Self.options(root: directory.url, host: down, logs: logs))
        await first.start()
        for key in keys {
            let analytics = try await first.instance(for: key)
            for index in 0..<10 { analytics.track("\(key) \(index)", properties: nil, options: EventOptions(userId: "user")) }
        }
        await first.drain(timeout: 5)
        #expect(Self.undurable(logs) == 0)
        // A log no admitted tenant owns: left where it is, and counted against the budget.
        let stray = directory.url.appendingPathComponent("stray-tenant/events", isDirectory: true)
        try FileManager.default.createDirectory(at: stray, withIntermediateDirectories: true)
        try Data(count: 10_000).write(to: stray.appendingPathComponent("segment-1"))

        let up = TenantLimitsTests.Host(server.baseURL.absoluteString)
        let next = AnalyticsTenants(policy: policy, limits: limits, known: [keys[0]], options: Self.options(root: directory.url, host: up, logs: logs))
        await next.start()
        let expected = Set(keys.flatMap { key in (0..<10).map { "\(key) \($0)" } })
        #expect(await eventually { Set(server.accepted).isSuperset(of: expected.filter { !$0.hasPrefix(keys[0] + " ") }) })
        #expect(next.instances.map(\.writeKey) == [keys[0]], "start shuts the tenants it delivered for down again")
        #expect(next.diskBytes >= 10_000, "the stray log counts against the budget")
        // The known tenant delivers its own log on its next flush.
        try await next.instance(for: keys[0]).flush()
        #expect(await eventually { Set(server.accepted) == expected })
        await next.drain(timeout: 5)
        await server.stop()
    }
}
