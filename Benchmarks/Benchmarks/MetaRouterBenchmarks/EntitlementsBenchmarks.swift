@preconcurrency import Benchmark
import Foundation
import MetaRouter

/// Entitlements: what a read costs the caller (a SwiftUI `body` may make several per frame).
func registerEntitlementsBenchmarks() {
    // `isEntitled` on `shared` (the proxy, then the instance's lock and a set lookup) and on the
    // instance itself, with a set of 20 keys held for the identified user.
    for onShared in [true, false] {
        let name = onShared ? "entitlements: isEntitled on shared" : "entitlements: isEntitled on the instance"
        Benchmark(name, configuration: .init(scalingFactor: .mega, maxIterations: 20)) { benchmark in
            let directory = benchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var options = InitOptions(writeKey: "bench-entitlements-\(UUID())", ingestionHost: "https://bench.invalid", flushIntervalSeconds: 3600)
            options.storageDirectory = directory
            options.transport = InMemoryTransport()
            options.maxDiskEvents = 0
            options.entitlements = EntitlementOptions(source: FixedEntitlements())
            let analytics = onShared ? MetaRouter.Analytics.initialize(with: options) : MetaRouter.Analytics.instance(for: options)
            analytics.identify("user-42")
            runBlocking { _ = try? await analytics.refreshEntitlements() }
            let reader = onShared ? MetaRouter.Analytics.shared : analytics
            guard reader.isEntitled("feature-7") else { return }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(reader.isEntitled("feature-7")) }
            benchmark.stopMeasurement()
            runBlocking { _ = await analytics.shutdown() }
        }
    }
}

/// Twenty keys for everyone, at once.
private struct FixedEntitlements: EntitlementSource {
    func entitlements(for userId: String, etag: String?) async throws -> EntitlementAnswer {
        .entitlements(Set((0..<20).map { "feature-\($0)" }), etag: nil)
    }

    func submitPurchase(transactionId: String, evidence: String, userId: String?, anonymousId: String?) async throws {}
}
