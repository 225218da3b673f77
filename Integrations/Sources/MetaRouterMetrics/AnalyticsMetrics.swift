import Foundation
import MetaRouter
import MetaRouterServiceLifecycle
import Metrics
import ServiceLifecycle
import Synchronization

/// The SDK's figures as swift-metrics, per tenant (the masked write key as the `tenant`
/// dimension), read from `getDebugInfo()` every ``interval`` seconds: nothing is added to the
/// `track` path. Counters grow by what changed since the last reading:
///
/// - `metarouter_events_accepted_total`, `metarouter_events_delivered_total`,
///   `metarouter_events_retried_total`, `metarouter_events_dropped_total` (with `reason`);
/// - gauges `metarouter_queue_depth`, `metarouter_queue_capacity`, `metarouter_breaker_state`
///   (0 closed, 1 half-open, 2 open) and `metarouter_request_in_flight` (0 or 1);
/// - given an `AnalyticsTenants`, `metarouter_tenant_refused_total` (with `reason`:
///   `unknown_key`, `malformed_key`, `draining`, `resolver_timeout`),
///   `metarouter_tenant_events_dropped_total` (the refused requests' events),
///   `metarouter_tenants_memory_only_total` (tenants admitted without a disk log: the disk
///   budget was spent), and the gauges `metarouter_tenants_live` and
///   `metarouter_tenants_disk_bytes` (the measured bytes the disk budget counts).
///
/// An instance that restarted (a tenant evicted and admitted again) counts from zero; its
/// counters go on from where they were.
public final class AnalyticsMetrics: Service {
    /// Seconds between readings.
    public let interval: TimeInterval
    private let source: @Sendable () -> [(writeKey: String, analytics: Analytics)]
    private let refusals: RefusalMetrics?
    private let factory: any MetricsFactory
    private let last = LastReadings()
    private let handles = MetricHandles()

    /// Reads the instances `source` returns (an `AnalyticsTenants`' `instances`, say) every
    /// `interval` seconds once ``run()`` runs, into `factory` (the bootstrapped one by default).
    public init(
        interval: TimeInterval = 10, factory: any MetricsFactory = MetricsSystem.factory,
        source: @escaping @Sendable () -> [(writeKey: String, analytics: Analytics)]
    ) {
        self.interval = max(0.1, interval)
        self.factory = factory
        self.source = source
        self.refusals = nil
    }

    /// Reads `tenants`' live instances and its refusals every `interval` seconds once
    /// ``run()`` runs, into `factory` (the bootstrapped one by default).
    public init(tenants: AnalyticsTenants, interval: TimeInterval = 10, factory: any MetricsFactory = MetricsSystem.factory) {
        self.interval = max(0.1, interval)
        self.factory = factory
        self.source = { tenants.instances }
        self.refusals = RefusalMetrics(tenants: tenants, factory: factory)
    }

    /// Reads every instance once and updates the metrics.
    public func collect() async {
        refusals?.collect()
        for (writeKey, analytics) in source() {
            let info = await analytics.getDebugInfo()
            let tenant = [("tenant", info.writeKey.isEmpty ? "unknown" : info.writeKey)]
            let now = Reading(
                accepted: info.stats.enqueued, delivered: info.stats.sent, retried: info.stats.retries,
                dropped: Dictionary(uniqueKeysWithValues: info.stats.dropped.map { ($0.key.rawValue, $0.value) }))
            var before = last.swap(now, for: writeKey)
            if now.accepted < before.accepted || now.delivered < before.delivered { before = Reading() }
            let metrics = handles.metrics(for: writeKey) { TenantMetrics(tenant: tenant, factory: factory) }
            metrics.accepted.increment(by: max(0, now.accepted - before.accepted))
            metrics.delivered.increment(by: max(0, now.delivered - before.delivered))
            metrics.retried.increment(by: max(0, now.retried - before.retried))
            for (reason, count) in now.dropped where count > before.dropped[reason, default: 0] {
                metrics.dropped(reason).increment(by: count - before.dropped[reason, default: 0])
            }
            metrics.queueDepth.record(info.queueLength)
            metrics.queueCapacity.record(info.maxQueueEvents)
            let breaker: Int
            switch info.circuitState {
            case .closed: breaker = 0
            case .halfOpen: breaker = 1
            case .open: breaker = 2
            }
            metrics.breakerState.record(breaker)
            metrics.requestInFlight.record(info.flushInFlight ? 1 : 0)
        }
    }

    /// Reads every ``interval`` seconds until graceful shutdown (in a `ServiceGroup`) or until
    /// its task is cancelled, and once more at the end.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.collect()
                try? await Task.sleep(nanoseconds: UInt64(self.interval * 1_000_000_000))
            }
        }
        await collect()
    }
}

struct Reading: Sendable {
    var accepted = 0
    var delivered = 0
    var retried = 0
    var dropped: [String: Int] = [:]
}

/// One tenant's metric objects, made on its first reading and kept (swift-metrics' backends
/// look each up by label and dimensions when it is made).
final class TenantMetrics: Sendable {
    let accepted: Counter
    let delivered: Counter
    let retried: Counter
    let queueDepth: Gauge
    let queueCapacity: Gauge
    let breakerState: Gauge
    let requestInFlight: Gauge
    private let tenant: [(String, String)]
    private let factory: any MetricsFactory
    private let droppedByReason = Mutex<[String: Counter]>([:])

    init(tenant: [(String, String)], factory: any MetricsFactory) {
        self.tenant = tenant
        self.factory = factory
        accepted = Counter(label: "metarouter_events_accepted_total", dimensions: tenant, factory: factory)
        delivered = Counter(label: "metarouter_events_delivered_total", dimensions: tenant, factory: factory)
        retried = Counter(label: "metarouter_events_retried_total", dimensions: tenant, factory: factory)
        queueDepth = Gauge(label: "metarouter_queue_depth", dimensions: tenant, factory: factory)
        queueCapacity = Gauge(label: "metarouter_queue_capacity", dimensions: tenant, factory: factory)
        breakerState = Gauge(label: "metarouter_breaker_state", dimensions: tenant, factory: factory)
        requestInFlight = Gauge(label: "metarouter_request_in_flight", dimensions: tenant, factory: factory)
    }

    /// The dropped-events counter for `reason` (the SDK's few drop reasons).
    func dropped(_ reason: String) -> Counter {
        droppedByReason.withLock { counters in
            if let counter = counters[reason] { return counter }
            let counter = Counter(label: "metarouter_events_dropped_total", dimensions: tenant + [("reason", reason)], factory: factory)
            counters[reason] = counter
            return counter
        }
    }
}

/// The tenants' refusals as metrics, their objects made once; counters grow by what changed
/// since the last reading.
final class RefusalMetrics: Sendable {
    private let tenants: AnalyticsTenants
    private let refused: [TenantRefusal: Counter]
    private let droppedEvents: Counter
    private let memoryOnly: Counter
    private let live: Gauge
    private let diskBytes: Gauge
    private let last = Mutex<(refused: [TenantRefusal: Int], droppedEvents: Int, memoryOnly: Int)>(([:], 0, 0))

    init(tenants: AnalyticsTenants, factory: any MetricsFactory) {
        self.tenants = tenants
        let reasons: [TenantRefusal] = [.unknownKey, .malformedKey, .draining, .resolverTimeout]
        refused = Dictionary(uniqueKeysWithValues: reasons.map {
            ($0, Counter(label: "metarouter_tenant_refused_total", dimensions: [("reason", $0.description)], factory: factory))
        })
        droppedEvents = Counter(label: "metarouter_tenant_events_dropped_total", factory: factory)
        memoryOnly = Counter(label: "metarouter_tenants_memory_only_total", factory: factory)
        live = Gauge(label: "metarouter_tenants_live", factory: factory)
        diskBytes = Gauge(label: "metarouter_tenants_disk_bytes", factory: factory)
    }

    func collect() {
        let now = (refused: tenants.refusalCounts, droppedEvents: tenants.droppedEvents, memoryOnly: tenants.memoryOnlyAdmissions)
        let before = last.withLock { last in
            defer { last = now }
            return last
        }
        for (reason, count) in now.refused where count > before.refused[reason, default: 0] {
            refused[reason]?.increment(by: count - before.refused[reason, default: 0])
        }
        droppedEvents.increment(by: max(0, now.droppedEvents - before.droppedEvents))
        memoryOnly.increment(by: max(0, now.memoryOnly - before.memoryOnly))
        live.record(tenants.instances.count)
        diskBytes.record(tenants.diskBytes)
    }
}

/// The metric objects per write key.
final class MetricHandles: Sendable {
    private let byWriteKey = Mutex<[String: TenantMetrics]>([:])

    func metrics(for writeKey: String, make: () -> TenantMetrics) -> TenantMetrics {
        byWriteKey.withLock { all in
            if let existing = all[writeKey] { return existing }
            let made = make()
            all[writeKey] = made
            return made
        }
    }
}

/// The last reading per write key.
final class LastReadings: Sendable {
    private let readings = Mutex<[String: Reading]>([:])

    func swap(_ reading: Reading, for writeKey: String) -> Reading {
        readings.withLock { readings in
            defer { readings[writeKey] = reading }
            return readings[writeKey] ?? Reading()
        }
    }
}
