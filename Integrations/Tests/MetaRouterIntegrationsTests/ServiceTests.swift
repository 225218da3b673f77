import Foundation
import Logging
import MetaRouter
import MetaRouterMetrics
import MetaRouterServiceLifecycle
import MetricsTestKit
import ServiceLifecycle
import Testing

/// The tenants' analytics in a `ServiceGroup`: known tenants start with the service, others on
/// first use; graceful shutdown (what SIGTERM triggers in the group) drains every queue, and
/// requests after it are refused, their calls dropped. The metrics read the same instances.
@Suite struct ServiceTests {
    /// Runs until the group's graceful shutdown, as an HTTP server would.
    struct Idle: Service {
        func run() async throws { try? await gracefulShutdown() }
    }

    @Test func gracefulShutdownDrainsEveryTenantAndMetricsCountIt() async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let tenants = AnalyticsTenants(policy: .allowList(["tenant-known-0001", "tenant-other-0002"]), known: ["tenant-known-0001"]) { writeKey in
            var options = InitOptions(writeKey: writeKey, ingestionHost: server.baseURL.absoluteString, flushIntervalSeconds: 3600)
            options.storageDirectory = directory.url.appendingPathComponent(InitOptions.storageName(for: writeKey))
            options.identityMode = .perCall
            return options
        }
        let metrics = TestMetrics()
        let collector = AnalyticsMetrics(tenants: tenants, interval: 3600, factory: metrics)
        let group = ServiceGroup(
            services: [AnalyticsService(tenants: tenants, drainTimeout: 10), Idle()], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await group.run() }
        #expect(await eventually { tenants.instances.count == 1 })

        for index in 0..<100 {
            try await tenants.instance(for: index.isMultiple(of: 2) ? "tenant-known-0001" : "tenant-other-0002")
                .track("Checkout \(index)", properties: nil, options: EventOptions(userId: "user-\(index)"))
        }
        #expect(await eventually {
            await collector.collect()
            return ((try? metrics.expectCounter("metarouter_events_accepted_total", [("tenant", "*************0001")]))?.totalValue ?? 0) == 50
        })
        await group.triggerGracefulShutdown()
        try await running.value

        #expect(Set(server.accepted) == Set((0..<100).map { "Checkout \($0)" }))
        await #expect(throws: TenantRefusal.draining) { try await tenants.instance(for: "tenant-known-0001") }
        let late = await tenants.requestAnalytics(for: "tenant-other-0002", identity: RequestIdentity(userId: "late"))
        late.track("After the drain")
        #expect(late.refusal == .draining && tenants.droppedEvents == 1)
        #expect(!server.accepted.contains("After the drain"))

        await collector.collect()
        let delivered = try metrics.expectCounter("metarouter_events_delivered_total", [("tenant", "*************0002")])
        #expect(delivered.totalValue == 50)
        let depth = try metrics.expectGauge("metarouter_queue_depth", [("tenant", "*************0002")])
        #expect(depth.lastValue == 0)
        #expect(try metrics.expectCounter("metarouter_tenant_refused_total", [("reason", "draining")]).totalValue == 2)
        #expect(try metrics.expectCounter("metarouter_tenant_events_dropped_total").totalValue == 1)
        // The disk budget's figures: bytes measured, and no tenant admitted without a log.
        await collector.collect()
        #expect(try metrics.expectGauge("metarouter_tenants_disk_bytes").lastValue == Double(tenants.diskBytes))
        #expect(try metrics.expectCounter("metarouter_tenants_memory_only_total").totalValue == 0)
        await server.stop()
    }
}
