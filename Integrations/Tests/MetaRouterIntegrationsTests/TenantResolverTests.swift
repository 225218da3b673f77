import Dispatch
import Foundation
import MetaRouter
import MetaRouterServiceLifecycle
import Synchronization
import Testing

/// A resolver is asked once per key however many requests ask at once, never on a request's
/// thread, and within a deadline: a live tenant never waits for it. Write keys of each test's own.
@Suite struct TenantResolverTests {
    @Test func concurrentRequestsForANewKeyShareOneResolverCall() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let calls = Mutex(0)
        let tenants = AnalyticsTenants(
            policy: .resolver { _ in
                calls.withLock { $0 += 1 }
                // A lookup that takes a while, so the requests arrive while it runs.
                try? await Task.sleep(nanoseconds: 300_000_000)
                return true
            },
            options: TenantLimitsTests.options(root: directory.url, host: TenantLimitsTests.Host(try TenantLimitsTests.deadHost())))
        let instances = await withTaskGroup(of: Analytics?.self) { group in
            for _ in 0..<200 { group.addTask { try? await tenants.instance(for: "coalesced-tenant-0001") } }
            var instances: [Analytics?] = []
            for await instance in group { instances.append(instance) }
            return instances
        }
        #expect(calls.withLock { $0 } == 1, "one resolver call for one key")
        #expect(instances.allSatisfy { $0 != nil && $0 === instances[0] })
        #expect(tenants.instances.count == 1)
        await tenants.drain(timeout: 5)
    }

    /// Blocks the calling thread until `gate` is signalled (a resolver that does blocking I/O).
    static func block(on gate: DispatchSemaphore) { gate.wait() }

    @Test func aBlockingResolverNeitherStallsLiveTenantsNorHoldsRequestsPastItsDeadline() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let gate = DispatchSemaphore(value: 0)
        let asked = Mutex<[String: Int]>([:])
        var limits = TenantLimits()
        limits.resolverTimeoutSeconds = 0.5
        let tenants = AnalyticsTenants(
            policy: .resolver { key in
                asked.withLock { $0[key, default: 0] += 1 }
                if key.hasPrefix("blocking-") { Self.block(on: gate) }
                return true
            }, limits: limits,
            options: TenantLimitsTests.options(root: directory.url, host: TenantLimitsTests.Host(try TenantLimitsTests.deadHost())))
        let live = try await tenants.instance(for: "resolver-live-tenant")
        // Whatever happens, the blocked resolvers are let go in 20 s (the pool of a version
        // that ran them on request threads would be stuck until then).
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + 20) { for _ in 0..<8 { gate.signal() } }

        let began = ContinuousClock.now
        let blocked = (0..<4).map { index in
            Task { () -> TenantRefusal? in
                do {
                    _ = try await tenants.instance(for: "blocking-tenant-\(index)")
                    return nil
                } catch {
                    return error as? TenantRefusal
                }
            }
        }
        #expect(await eventually { asked.withLock { $0.keys.filter { $0.hasPrefix("blocking-") }.count } == 4 })
        for _ in 0..<100 { #expect(try await tenants.instance(for: "resolver-live-tenant") === live) }
        let tookLive = ContinuousClock.now - began
        #expect(tookLive < .seconds(2), "a live tenant waited \(tookLive) on blocked resolver calls")

        var refusals: [TenantRefusal?] = []
        for task in blocked { refusals.append(await task.value) }
        let tookBlocked = ContinuousClock.now - began
        #expect(refusals == Array(repeating: .resolverTimeout, count: 4))
        #expect(tookBlocked < .seconds(5), "the blocked keys were refused after \(tookBlocked), past their deadline")
        // A request for a key whose call still blocks is refused at once; the call is not repeated.
        await #expect(throws: TenantRefusal.resolverTimeout) { try await tenants.instance(for: "blocking-tenant-0") }
        #expect(tenants.refusalCounts[.resolverTimeout] == 5)

        // Once the calls return, their answers are remembered: the keys are admitted unasked.
        for _ in 0..<4 { gate.signal() }
        #expect(await eventually { (try? await tenants.instance(for: "blocking-tenant-0")) != nil })
        #expect(asked.withLock { $0["blocking-tenant-0"] } == 1)
        await tenants.drain(timeout: 5)
    }
}
