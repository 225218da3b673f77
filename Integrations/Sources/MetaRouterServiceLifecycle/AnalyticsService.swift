import Foundation
import Logging
import MetaRouter
import ServiceLifecycle

/// The tenants' analytics as a `Service` of a `ServiceGroup`: it starts the tenants (the known
/// ones, and those whose disk logs kept events), shuts idle tenants down while it runs, and at
/// graceful shutdown (the group handles SIGTERM and SIGINT, not the SDK) drains every instance
/// within ``drainTimeout`` seconds — what is not delivered by then stays in the tenants' disk
/// logs for the next start. Put it before the HTTP server in
/// the group's list: the group shuts services down in reverse order, so requests stop first.
public struct AnalyticsService: Service {
    /// The tenants this service owns.
    public let tenants: AnalyticsTenants
    /// Seconds the drain may take (8: within Kubernetes' 30 s grace period with room to spare).
    public let drainTimeout: TimeInterval
    private let logger: Logger?

    /// A service for `tenants`, draining within `drainTimeout` seconds, logging its drain to
    /// `logger`.
    public init(tenants: AnalyticsTenants, drainTimeout: TimeInterval = 8, logger: Logger? = nil) {
        self.tenants = tenants
        self.drainTimeout = drainTimeout
        self.logger = logger
    }

    /// Runs until graceful shutdown, evicting idle tenants every quarter of
    /// ``TenantLimits/idleSeconds`` (once a minute at most), then drains.
    public func run() async throws {
        await tenants.start()
        await cancelWhenGracefulShutdown { await tenants.evictIdleUntilCancelled() }
        let started = ContinuousClock.now
        let complete = await tenants.drain(timeout: drainTimeout)
        logger?.info(
            "analytics drained", metadata: ["complete": .stringConvertible(complete), "seconds": .string("\(ContinuousClock.now - started)")])
    }
}
