import Foundation
import Logging
import MetaRouter

/// One MetaRouter instance per tenant write key, created on the tenant's first request and
/// kept for the life of the service (shut down only when the service stops).
public final class TenantAnalytics: @unchecked Sendable {  // `instances` is only touched under `lock`
    private let ingestionHost: URL
    private let storageRoot: URL
    private let logger: Logging.Logger
    private let lock = NSLock()
    private var instances: [String: any AnalyticsInterface] = [:]

    /// Instances deliver to `ingestionHost` and keep their files under `storageRoot`.
    public init(ingestionHost: URL, storageRoot: URL, logger: Logging.Logger) {
        self.ingestionHost = ingestionHost
        self.storageRoot = storageRoot
        self.logger = logger
    }

    /// The instance for `writeKey`: a dictionary lookup after the first request.
    public func instance(for writeKey: String) -> any AnalyticsInterface {
        if let existing = lock.withLock({ instances[writeKey] }) { return existing }
        // Created outside the lock; `instance(for:)` returns the same instance to a racing request.
        let created = MetaRouter.Analytics.instance(for: options(for: writeKey))
        lock.withLock { instances[writeKey] = created }
        return created
    }

    /// A server acts for many users: identity comes with each request (`.perCall`), never
    /// from a persisted device identity.
    private func options(for writeKey: String) -> InitOptions {
        var options = InitOptions(writeKey: writeKey, ingestionHost: ingestionHost, flushIntervalSeconds: 5)
        options.application = ApplicationInfo(name: "checkout-service", version: "1.0.0", build: "1")
        options.storageDirectory = storageRoot.appendingPathComponent(InitOptions.storageName(for: writeKey))
        options.identityMode = .perCall
        // A server's disk budget: enough for minutes of outage at thousands of events/s
        // (each queued event takes ~0.7 KB on disk and ~0.1 KB of memory for its index),
        // and a day at most on disk: older events are dropped at the next start.
        options.maxDiskEvents = 500_000
        options.maxDiskBytes = 512 * 1024 * 1024
        options.maxDiskAgeSeconds = 24 * 3600
        // Thousands of events per second: requests of up to 500 events (~0.3 MB here), sent
        // when that many are waiting or every 5 s, instead of one per round trip of whatever
        // arrived meanwhile: at full load 500 events per request instead of about 70.
        options.flushAt = 500
        options.maxBatchSize = 500
        options.transport = AsyncHTTPClientTransport()
        options.logSink = SwiftLogSink(logger: logger)
        return options
    }
}
