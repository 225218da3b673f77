#if os(Linux)
import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// A process out of file descriptors: the request that cannot get a socket is reported as
/// what it is, not as the host being down — the breaker stays closed — and the batch goes out
/// once descriptors are free again. (A child process: the limit is process-wide.)
@Suite struct DescriptorExhaustionTests {
    /// `getDebugInfo` counts what the instance holds: the log's lock and active segment, the same
    /// after a batch went out (its connection went back to the process's pool, not to the
    /// instance), and nothing once it is shut down.
    @Test func debugInfoCountsTheDescriptorsAnInstanceHolds() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = InitOptions(writeKey: "descriptors-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        let analytics = MetaRouter.Analytics.instance(for: options)
        // The other tests' instances share the process's budget: over it, nothing is kept open.
        let kept = await analytics.getDebugInfo().openDescriptors
        #expect(kept == 2 || DescriptorBudget.isOverBudget && kept == 0)
        analytics.track("Counted")
        await analytics.flushAndWait()
        #expect(await analytics.getDebugInfo().openDescriptors == kept || DescriptorBudget.isOverBudget)
        await analytics.shutdown()
        #expect(await analytics.getDebugInfo().openDescriptors == 0)
    }

    /// 10,000 tenants in one process limited to 1,024 descriptors: over the budget, logs close
    /// their files between writes, requests wait their turn for a socket and share the
    /// process's connections; every event is delivered and nothing runs out.
    @Test func tenThousandTenantsUnderAThousandDescriptors() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try await runChildProcess(["tenants", directory.url.path, collector.baseURL.absoluteString, "10000"])
        let (lines, logs, status) = (child.lines, child.logs, child.status)
        #expect(status == 0)
        #expect(lines.contains { $0.hasPrefix("tenants 10000 sent 20000 ") }, "\(lines)")
        #expect(lines.contains("shutdown true"), "\(lines)")
        #expect(!logs.contains("sdk.resources_exhausted") && !logs.contains("sdk.event_log_error"), "\(logs.prefix(2_000))")
        #expect(try await collector.acceptedEvents().count == 20_000)
        // Tenants share connections: as many as requests ran at once, not one per tenant.
        let connections = Set(try await collector.requests().map(\.clientPort)).count
        #expect(connections <= 200, "\(connections) connections for 10,000 tenants")
    }

    @Test func runningOutOfDescriptorsIsNotTheHostBeingDown() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try await runChildProcess(["fdlimit", directory.url.path, collector.baseURL.absoluteString])
        let (lines, logs) = (child.lines, child.logs)
        #expect(lines.contains { $0.hasPrefix("exhausted ") }, "\(lines)")
        #expect(lines.contains("circuit closed retries 1"), "\(lines) \(logs)")
        #expect(lines.contains("sent 5"), "\(lines)")
        #expect(logs.contains("sdk.resources_exhausted"), "\(logs)")
        #expect(!logs.contains("Couldn't connect"), "\(logs)")
        #expect(try await collector.acceptedEvents().compactMap(\.number) == Array(0..<5))
    }
}
#endif
