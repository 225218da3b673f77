import Foundation
import MetaRouterContext
import MetaRouterCore
import MetaRouterDelivery
import MetaRouterIdentity

// SPI, not public API: only a client that imports this module with `@_spi(Benchmarks)` sees it,
// and it may change in any release.

/// A pipeline the benchmark package assembles without the facade: identity and context between
/// the plugins it puts `before` and `after` them, a client whose ingress is unbounded (the
/// benchmarks' producers outrun the executor on purpose, and every rate counts every call) and
/// which logs errors only.
@_spi(Benchmarks) public final class BenchmarkPipeline: Sendable {
    private let client: AnalyticsClient

    /// Builds the pipeline `before + [identity, context] + after` for write key `"bench"`.
    ///
    /// - Parameters:
    ///   - before: Plugins ahead of identity and context.
    ///   - after: Plugins after them (destinations).
    ///   - application: The host application the context plugin reports.
    public init(before: [any Plugin] = [], after: [any Plugin], application: ApplicationInfo = ApplicationInfo()) {
        var configuration = Configuration(
            writeKey: "bench", logger: AnalyticsLogger(minimumLevel: .error), application: application)
        configuration.maxPendingEvents = .max
        client = AnalyticsClient(configuration: configuration, plugins: before + [IdentityPlugin(), ContextPlugin()] + after)
    }

    /// The MetaRouter destination posting to `host` in batches of `flushAt`, queueing
    /// `maxQueueEvents` in memory, or in a disk log in `disk` holding as many (1 GiB at most).
    ///
    /// - Parameters:
    ///   - host: The ingestion host.
    ///   - transport: The transport, or `nil` for the default one.
    ///   - flushAt: Queued events that start an upload.
    ///   - maxQueueEvents: The queue's capacity, in memory or on disk.
    ///   - gzip: Whether bodies are compressed.
    ///   - disk: The disk log's directory, or `nil` for none.
    /// - Returns: The destination.
    public static func destination(
        host: URL, transport: (any HTTPTransport)? = nil, flushAt: Int, maxQueueEvents: Int, gzip: Bool = false, disk: URL? = nil
    ) -> any DestinationPlugin {
        var options = MetaRouterDestination.Options(ingestionHost: host)
        options.transport = transport
        options.upload.flushAt = flushAt
        options.upload.maxQueueEvents = maxQueueEvents
        options.upload.gzip = gzip
        if let disk {
            var log = DiskLogOptions(directory: disk)
            log.maxEvents = maxQueueEvents
            log.maxBytes = 1 << 30
            options.disk = log
        }
        return MetaRouterDestination.make(options: options)
    }

    /// A destination of one's own on the durable engine, sending through `transport`.
    ///
    /// - Parameters:
    ///   - key: The destination's key.
    ///   - format: Its wire format.
    ///   - options: Its options.
    ///   - transport: The transport its requests go to.
    /// - Returns: The destination, to add to an instance.
    public static func durableDestination(
        key: String, format: any DeliveryFormat, options: DurableDestinationOptions = .init(), transport: any HTTPTransport
    ) -> DurableDestination {
        let destination = DurableDestination(key: key, format: format, options: options)
        destination.transport = transport
        return destination
    }

    /// Tracks `name` as `Analytics.track` does.
    ///
    /// - Parameters:
    ///   - name: The event name.
    ///   - properties: The event's properties.
    public func track(_ name: String, properties: [String: Any]? = nil) { client.track(name, properties: properties) }

    /// Returns once every call made before it has run.
    public func settle() async { await client.settle() }

    /// Flushes and returns once the uploads it started have resolved.
    public func flushAndWait() async { await client.flushAndWait() }

    /// Shuts the pipeline down.
    ///
    /// - Parameter timeout: Seconds to wait for delivery at most.
    /// - Returns: Whether every accepted event was delivered or stored.
    @discardableResult
    public func shutdown(timeout: TimeInterval = 5) async -> Bool { await client.shutdown(timeout: timeout) }
}
