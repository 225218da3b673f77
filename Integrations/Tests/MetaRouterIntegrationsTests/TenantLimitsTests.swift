import Foundation
import Logging
import MetaRouter
import MetaRouterServiceLifecycle
import Synchronization
import Testing

/// What a stranger's keys can do to `AnalyticsTenants` (nothing), and the limits on what the
/// admitted tenants hold: live instances, idle time, one disk budget, the drain's deadline.
/// Real instances, files and HTTP on 127.0.0.1. Each test has write keys of its own: the SDK
/// keeps one instance per write key in the process.
@Suite struct TenantLimitsTests {
    /// An ingestion host that a test may change.
    final class Host: Sendable {
        private let url: Mutex<String>
        init(_ url: String) { self.url = Mutex(url) }
        var current: String {
            get { url.withLock { $0 } }
            set { url.withLock { $0 = newValue } }
        }
    }

    /// Options for a tenant under `root`, delivering to whatever `host` says now.
    static func options(root: URL, host: Host) -> @Sendable (String) -> InitOptions {
        { writeKey in
            var options = InitOptions(writeKey: writeKey, ingestionHost: host.current, flushIntervalSeconds: 3600)
            options.storageDirectory = root.appendingPathComponent(InitOptions.storageName(for: writeKey))
            options.identityMode = .perCall
            return options
        }
    }

    /// An address nothing listens on: a port bound, then closed.
    static func deadHost() throws -> String {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    @Test func strangersKeysCreateNothingAndAreLoggedOnce() async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let logs = LoggingTests.Capture()
        let host = Host(server.baseURL.absoluteString)
        let tenants = AnalyticsTenants(
            policy: .allowList(["customer-key-0001"]), logger: logs.logger(level: .info), options: Self.options(root: directory.url, host: host))

        for _ in 0..<3_000 {
            await #expect(throws: TenantRefusal.unknownKey) { try await tenants.instance(for: UUID().uuidString) }
        }
        for malformed in ["", String(repeating: "k", count: 300), "key\nwith-a-newline"] {
            await #expect(throws: TenantRefusal.malformedKey) { try await tenants.instance(for: malformed) }
        }
        let stranger = await tenants.requestAnalytics(for: "not-a-customer", identity: RequestIdentity(userId: "someone"))
        stranger.track("Checkout Started")

        #expect(tenants.instances.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        #expect(tenants.refusalCounts == [.unknownKey: 3_001, .malformedKey: 3])
        #expect(tenants.droppedEvents == 1)
        let lines = logs.records.withLock { $0.filter { $0.message.contains("not admitted") } }
        #expect(lines.count == 1, "one line per 10 s, not one per request")
        #expect(lines.first?.metadata["tenant"].map { "\($0)" }?.hasPrefix("****") == true)

        let customer = try await tenants.instance(for: "customer-key-0001")
        customer.track("Checkout Started", properties: nil, options: EventOptions(userId: "user-1"))
        await tenants.drain(timeout: 10)
        #expect(server.events.map { $0["writeKey"]?.stringValue } == ["customer-key-0001"])
        await server.stop()
    }

    @Test func aResolverIsAskedOncePerKeyWithinItsMemory() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let asked = Mutex<[String: Int]>([:])
        var limits = TenantLimits()
        limits.rememberedAnswers = 3
        let tenants = AnalyticsTenants(
            policy: .resolver { key in
                asked.withLock { $0[key, default: 0] += 1 }
                return key.hasPrefix("customer-")
            }, limits: limits, options: Self.options(root: directory.url, host: Host(try Self.deadHost())))
        for _ in 0..<50 {
            _ = try await tenants.instance(for: "customer-0001")
            await #expect(throws: TenantRefusal.unknownKey) { try await tenants.instance(for: "stranger-0001") }
        }
        #expect(asked.withLock { $0 } == ["customer-0001": 1, "stranger-0001": 1])
        // Three more strangers push the oldest answers out: the first stranger is asked again.
        for index in 2...4 { _ = try? await tenants.instance(for: "stranger-000\(index)") }
        _ = try? await tenants.instance(for: "stranger-0001")
        #expect(asked.withLock { $0["stranger-0001"] } == 2)
        await tenants.drain(timeout: 5)

        // A "no" remembered for no time is asked again each time; a "yes" stays.
        limits.refusalMemorySeconds = 0
        let forgetful = AnalyticsTenants(
            policy: .resolver { key in
                asked.withLock { $0["forgetful-" + key, default: 0] += 1 }
                return key.hasPrefix("customer-")
            }, limits: limits, options: Self.options(root: directory.url, host: Host(try Self.deadHost())))
        for _ in 0..<3 { _ = try? await forgetful.instance(for: "stranger-0009") }
        #expect(asked.withLock { $0["forgetful-stranger-0009"] } == 3)
        await forgetful.drain(timeout: 5)
    }

    @Test func theCapEvictsTheLeastRecentlyUsedWhoseLogIsDeliveredWhenItReturns() async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let host = Host(try Self.deadHost())
        var limits = TenantLimits()
        limits.maxLiveTenants = 2
        // The default eviction time (5 s): an eviction cut short by a busy machine would keep
        // A's log locked, and A would come back queueing in memory.
        let tenants = AnalyticsTenants(
            policy: .allowList(["cap-tenant-a", "cap-tenant-b", "cap-tenant-c"]), limits: limits, options: Self.options(root: directory.url, host: host))

        let first = try await tenants.instance(for: "cap-tenant-a")
        for index in 0..<5 { first.track("A-\(index)", properties: nil, options: EventOptions(userId: "user-a")) }
        _ = try await tenants.instance(for: "cap-tenant-b")
        _ = try await tenants.instance(for: "cap-tenant-c")
        #expect(Set(tenants.instances.map(\.writeKey)) == ["cap-tenant-b", "cap-tenant-c"])

        // The host comes back; tenant A returns (after its eviction finished) with its log.
        host.current = server.baseURL.absoluteString
        let returned = try await tenants.instance(for: "cap-tenant-a")
        #expect(returned !== first)
        #expect(tenants.instances.count == 2)
        #expect(await eventually {
            returned.flush()
            return server.accepted.filter { $0.hasPrefix("A-") }.count == 5
        })
        await tenants.drain(timeout: 5)
        #expect(Set(server.accepted) == Set((0..<5).map { "A-\($0)" }))
        await server.stop()
    }

    @Test func idleTenantsAreShutDownAndComeBack() async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        var limits = TenantLimits()
        limits.idleSeconds = 0
        let tenants = AnalyticsTenants(
            policy: .allowList(["tenant-idle"]), limits: limits, options: Self.options(root: directory.url, host: Host(server.baseURL.absoluteString)))
        let first = try await tenants.instance(for: "tenant-idle")
        first.track("Before", properties: nil, options: EventOptions(userId: "user"))
        tenants.evictIdle()
        #expect(tenants.instances.isEmpty)
        #expect(await eventually { server.accepted == ["Before"] }, "the eviction delivered the queue")
        let again = try await tenants.instance(for: "tenant-idle")
        again.track("After", properties: nil, options: EventOptions(userId: "user"))
        // The sweep the services run finds it idle too (every second, with idleSeconds 0).
        let sweeping = Task { await tenants.evictIdleUntilCancelled() }
        #expect(await eventually { tenants.instances.isEmpty })
        sweeping.cancel()
        #expect(await eventually { server.accepted == ["Before", "After"] })
        await tenants.drain(timeout: 5)
        await server.stop()
    }

    /// Tenants filled to their logs' caps one after another (two live, a 2 MiB budget, so 1 MiB
    /// shares): each gets a log while the measured bytes leave room for one (64 KiB), a smaller
    /// one when less than a share is left, and the first admitted when less than 64 KiB is left
    /// queues in memory only, counted once. A full log measures a little under its cap, so
    /// which tenant that is depends on what the logs hold, not on timing.
    @Test func oneDiskBudgetForTheWholeProcess() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        var limits = TenantLimits()
        limits.maxLiveTenants = 2
        limits.diskBudgetBytes = 2 << 20
        limits.evictionTimeout = 0.2
        let keys = (0..<6).map { "disk-tenant-\($0)" }
        let tenants = AnalyticsTenants(
            policy: .allowList(keys), limits: limits, options: Self.options(root: directory.url, host: Host(try Self.deadHost())))
        let padding = String(repeating: "x", count: 1_000)
        var withLogs = 0
        for key in keys {
            let before = tenants.diskBytes
            let analytics = try await tenants.instance(for: key)
            guard await analytics.getDebugInfo().queueOnDisk else {
                #expect(limits.diskBudgetBytes - tenants.diskBytes < 64 << 10, "\(tenants.diskBytes) bytes measured, yet no log")
                break
            }
            #expect(limits.diskBudgetBytes - before >= 0, "a log was given past the budget (\(before) bytes measured)")
            withLogs += 1
            for index in 0..<3_000 { analytics.track("Filler \(index)", properties: ["padding": padding], options: EventOptions(userId: "user")) }
            // Written to the log (a flush writes before its request leaves), for the next admission to measure.
            await analytics.flushAndWait()
        }
        #expect((2...4).contains(withLogs), "\(withLogs) tenants had a log")
        #expect(tenants.memoryOnlyAdmissions == 1)
        await tenants.drain(timeout: 1)
        let onDisk = Self.bytes(under: directory.url)
        #expect(onDisk <= (2 << 20) + (256 << 10), "\(onDisk) bytes on disk for a 2 MiB budget")
    }

    @Test func theDrainHonoursItsDeadlineAfterThousandsOfTenants() async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let keys = (0..<3_000).map { "drain-tenant-\($0)" }
        var limits = TenantLimits()
        limits.evictionTimeout = 2
        let tenants = AnalyticsTenants(
            policy: .allowList(keys), limits: limits, options: Self.options(root: directory.url, host: Host(server.baseURL.absoluteString)))
        for key in keys {
            try await tenants.instance(for: key).track("Checkout", properties: nil, options: EventOptions(userId: key))
        }
        #expect(tenants.instances.count == limits.maxLiveTenants)
        let began = ContinuousClock.now
        let complete = await tenants.drain(timeout: 8)
        let took = ContinuousClock.now - began
        #expect(took < .seconds(9), "the drain took \(took)")
        #expect(complete)
        // An eviction past its timeout (a busy machine) leaves its event in the tenant's log,
        // which the next start delivers: every tenant's event arrives, none is lost.
        let next = AnalyticsTenants(
            policy: .allowList(keys), limits: limits, options: Self.options(root: directory.url, host: Host(server.baseURL.absoluteString)))
        await next.start()
        #expect(await eventually { Set(server.events.compactMap { $0["userId"]?.stringValue }) == Set(keys) })
        await next.drain(timeout: 8)
        await server.stop()
    }

    static func bytes(under directory: URL) -> Int {
        let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        var total = 0
        while let url = walk?.nextObject() as? URL { total += (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0 }
        return total
    }
}
