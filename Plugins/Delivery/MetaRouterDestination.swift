import Foundation
import MetaRouterCore

/// The default destination: delivers every event to a MetaRouter ingestion cluster in
/// batches (`POST {host}/v1/batch`), with the seed's status table and circuit breaker — a
/// ``DurableDestination`` with the MetaRouter format.
///
/// The facade adds it unless ``DefaultPlugins`` leaves out `.delivery`; a pipeline assembled
/// without the facade adds the plugin ``make(options:)`` returns.
package enum MetaRouterDestination {
    /// The built-in destination's key.
    package static let key = "MetaRouter"

    /// Creates the destination (key `"MetaRouter"`).
    ///
    /// - Parameter options: The ingestion host, write key, queue and transport.
    /// - Returns: The destination, to add to a pipeline.
    package static func make(options: Options) -> DurableDestination {
        DurableDestination(metaRouter: options)
    }

    /// Tuning of the destination.
    package struct Options: Sendable {
        /// The ingestion host, e.g. `https://ingest.example.com` (a path prefix is kept).
        package var ingestionHost: URL
        /// The durable disk log, or `nil` to keep the queue in memory only.
        package var disk: DiskLogOptions?
        /// The transport; `HTTPTransports.standard` (libcurl on Linux, URLSession elsewhere) unless given.
        package var transport: (any HTTPTransport)?
        /// Batching, flushing, timeouts, and the queue's capacity when the disk log is off (or
        /// cannot be opened): ``BatchUploader/Options/maxQueueEvents``, the oldest dropped beyond
        /// it. With the disk log on, its own caps apply instead.
        package var upload = BatchUploader.Options()
        /// Called with events dropped for good and the reason.
        package var onPermanentFailure: (@Sendable (PermanentFailure) -> Void)?
        /// Scales breaker jitter; values in `-1...1` (tests pin it).
        package var breakerRandom: @Sendable () -> Double = { Double.random(in: -1...1) }

        /// Options for `ingestionHost` with the seed's defaults.
        ///
        /// - Parameter ingestionHost: The ingestion cluster's base URL.
        package init(ingestionHost: URL) {
            self.ingestionHost = ingestionHost
        }

        /// Where batches are posted: `{host}/v1/batch`.
        package var endpoint: URL { Self.batchEndpoint(for: ingestionHost) }

        /// `{host}/v1/batch`, keeping a path prefix and trimming one trailing slash.
        package static func batchEndpoint(for host: URL) -> URL {
            var text = host.absoluteString.trimmingBlanks()
            if text.hasSuffix("/") { text.removeLast() }
            return URL(string: text + "/v1/batch") ?? host.appendingPathComponent("v1/batch")
        }
    }
}
