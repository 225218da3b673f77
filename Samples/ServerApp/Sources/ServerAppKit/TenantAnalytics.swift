import Foundation
import Logging
import MetaRouter
import MetaRouterAsyncHTTPClient
import MetaRouterLogging
import MetaRouterServiceLifecycle

/// The checkout service's tenants: `AnalyticsTenants` (MetaRouterServiceLifecycle) with the
/// options a server gives each instance.
public enum TenantAnalytics {
    /// Tenants delivering to `ingestionHost`, each with its files under `storageRoot`. Only
    /// `customers` are admitted (the write keys the service's own records hold; a request naming
    /// any other key is refused and its event dropped), and they start with the service. At most
    /// 16 live at once, sharing 4 GiB of disk log (256 MiB each).
    public static func make(ingestionHost: URL, storageRoot: URL, logger: Logging.Logger, customers: [String]) -> AnalyticsTenants {
        var limits = TenantLimits()
        limits.maxLiveTenants = 16
        limits.diskBudgetBytes = 4 << 30
        return AnalyticsTenants(policy: .allowList(customers), limits: limits, known: customers, logger: logger) { writeKey in
            options(for: writeKey, ingestionHost: ingestionHost, storageRoot: storageRoot, logger: logger)
        }
    }

    /// A server acts for many users: identity comes with each request (`.perCall`), never
    /// from a persisted device identity.
    static func options(for writeKey: String, ingestionHost: URL, storageRoot: URL, logger: Logging.Logger) -> InitOptions {
        var options = InitOptions(writeKey: writeKey, ingestionHost: ingestionHost, flushIntervalSeconds: 5)
        options.application = ApplicationInfo(name: "checkout-service", version: "1.0.0", build: "1")
        options.storageDirectory = storageRoot.appendingPathComponent(InitOptions.storageName(for: writeKey))
        options.identityMode = .perCall
        // A tenant's disk log: minutes of outage at thousands of events/s (each queued event
        // takes ~0.7 KB on disk and ~0.1 KB of memory for its index), within the tenants' share
        // of the process's budget (256 MiB, see `make`), and a day at most on disk: older events
        // are dropped at the next start.
        options.maxDiskEvents = 500_000
        options.maxDiskBytes = 512 * 1024 * 1024
        options.maxDiskAgeSeconds = 24 * 3600
        // Thousands of events per second: requests of up to 500 events (~0.3 MB here), sent
        // when that many are waiting or every 5 s, instead of one per round trip of whatever
        // arrived meanwhile: at full load 500 events per request instead of about 70.
        options.flushAt = 500
        options.maxBatchSize = 500
        options.transport = AsyncHTTPClientTransport()
        options.log(to: logger)
        return options
    }
}
