import Foundation
import MetaRouterCore

/// The default destination: delivers every event to a MetaRouter ingestion cluster in
/// batches (`POST {host}/v1/batch`), with the seed's status table and circuit breaker.
/// Built on ``BatchUploader``.
///
/// The facade adds it unless ``DefaultPlugins`` leaves out `.delivery`; a pipeline assembled
/// without the facade adds the plugin ``make(options:)`` returns.
package enum MetaRouterDestination {
    /// Creates the destination (key `"MetaRouter"`). It flushes when asked, completes flushes
    /// and shutdowns for ``AnalyticsClient/flushAndWait()`` and
    /// ``AnalyticsClient/shutdown(timeout:)``, and follows the app's lifecycle.
    ///
    /// - Parameter options: The ingestion host, write key, queue and transport.
    /// - Returns: The destination, to add to a pipeline.
    package static func make(options: Options) -> any DestinationPlugin {
        IngestionDestination(options: options)
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
        package var upload: BatchUploader.Options
        /// Called with events dropped for good and the reason.
        package var onPermanentFailure: (@Sendable (PermanentFailure) -> Void)?
        /// Scales breaker jitter; values in `-1...1` (tests pin it).
        package var breakerRandom: @Sendable () -> Double = { Double.random(in: -1...1) }

        /// Options for `ingestionHost` with the seed's defaults.
        ///
        /// - Parameter ingestionHost: The ingestion cluster's base URL.
        package init(ingestionHost: URL) {
            self.ingestionHost = ingestionHost
            upload = BatchUploader.Options(endpoint: Self.batchEndpoint(for: ingestionHost))
        }

        /// `{host}/v1/batch`, keeping a path prefix and trimming one trailing slash.
        package static func batchEndpoint(for host: URL) -> URL {
            var text = host.absoluteString.trimmingBlanks()
            if text.hasSuffix("/") { text.removeLast() }
            return URL(string: text + "/v1/batch") ?? host.appendingPathComponent("v1/batch")
        }
    }
}

/// The plugin ``MetaRouterDestination/make(options:)`` returns.
package final class IngestionDestination: DestinationPlugin, CompletingPlugin, LifecycleAware {
    /// `"MetaRouter"`.
    package let key = "MetaRouter"
    /// This destination's own plugins.
    package let timeline = Timeline()
    /// The delivery machinery (available once configured).
    package private(set) var uploader: BatchUploader?
    /// Why the disk log could not be used, when it could not (the queue is then in memory).
    package private(set) var storageError: String?
    /// The queue limit in force once joined: the disk log's caps, or the in-memory capacity
    /// when the log is off or could not be opened (``Options/maxQueueEvents`` applies only then).
    package private(set) var queueLimit: QueueLimit?
    /// What opening the disk log found.
    package private(set) var recovery: DiskEventStore.RecoveryReport?

    private let options: MetaRouterDestination.Options

    /// Creates the destination.
    package init(options: MetaRouterDestination.Options) {
        self.options = options
    }

    /// Builds the uploader with the client's write key, clock and logger, and starts timers.
    package func configure(analytics: AnalyticsClient) {
        let policies: [any FlushPolicy] = [
            CountFlushPolicy(count: options.upload.flushAt), IntervalFlushPolicy(seconds: options.upload.flushIntervalSeconds),
        ]
        let uploader = BatchUploader(
            options: options.upload,
            store: makeStore(analytics),
            format: MetaRouterBatchFormat(writeKey: analytics.configuration.writeKey),
            transport: options.transport ?? HTTPTransports.standard(timeout: options.upload.requestTimeout),
            policies: policies,
            breakerRandom: options.breakerRandom,
            onPermanentFailure: options.onPermanentFailure)
        uploader.start(analytics: analytics)
        self.uploader = uploader
    }

    private func makeStore(_ analytics: AnalyticsClient) -> any EventStore {
        let memoryLimit = QueueLimit(storage: .memory, maxEvents: options.upload.maxQueueEvents)
        guard let disk = options.disk else {
            queueLimit = memoryLimit
            return InMemoryEventStore(capacity: options.upload.maxQueueEvents)
        }
        do {
            let store = try DiskEventStore(options: disk, clock: analytics.configuration.clock, logger: analytics.logger)
            let report = store.recovery
            recovery = report
            if report.isNoteworthy {
                analytics.logger.info(
                    "sdk.event_log_recovered: event log recovered \(report.recovered) event(s); dropped \(report.expired) older than the age limit, "
                        + "\(report.overCap) over the caps; skipped \(report.corruptRecords) damaged record(s), \(report.tornBytes) torn byte(s), "
                        + "\(report.unreadableFiles) unreadable and \(report.ignoredFiles) foreign file(s)")
            }
            for problem in report.problems { analytics.logger.warning("sdk.event_log_problem: event log: \(problem)") }
            queueLimit = QueueLimit(storage: .disk, maxEvents: disk.maxEvents, maxBytes: disk.maxBytes)
            return store
        } catch {
            storageError = "\(error)"
            analytics.logger.error("sdk.event_log_unavailable: event log unavailable (\(error)); events are kept in memory only")
            queueLimit = memoryLimit
            return InMemoryEventStore(capacity: options.upload.maxQueueEvents)
        }
    }

    /// Queues the event for delivery.
    package func execute(event: Event) -> Event? {
        uploader?.enqueue(event)
        return event
    }

    /// Sends what is queued.
    package func flush() { uploader?.flush() }

    /// Sends what is queued; `completion` runs when the attempt has resolved.
    package func flush(completion: @escaping @Sendable () -> Void) {
        guard let uploader else { return completion() }
        uploader.flush(completion: completion)
    }

    /// Clears the queue; an in-flight batch is not requeued.
    package func reset() { uploader?.reset() }

    /// Stops timers.
    package func shutdown() { uploader?.close() }

    /// Restarts the flush timer and sends what is queued.
    package func applicationDidEnterForeground() {
        uploader?.resumeTimers()
        uploader?.flush()
    }

    /// Sends what is queued, makes the rest durable, and stops the timers.
    package func applicationDidEnterBackground() {
        uploader?.flush()
        uploader?.persist()
        uploader?.pauseTimers()
    }

    /// Makes what is queued durable.
    package func applicationWillTerminate() { uploader?.persist() }

    /// Flushes what is queued, then stops timers and calls `completion`.
    package func shutdown(completion: @escaping @Sendable () -> Void) {
        shutdown { _ in completion() }
    }

    /// Flushes what is queued, then stops timers and calls `completion` with the number of
    /// queued events that are not on disk.
    package func shutdown(reportingUndurable completion: @escaping @Sendable (Int) -> Void) {
        guard let uploader, let analytics = uploader.analytics else { return completion(0) }
        // The flush's completion runs on the executor, where the uploader may be used.
        let bound = ExecutorBound(uploader, on: analytics)
        uploader.flush {
            bound.value.close()
            completion(bound.value.undurableEvents)
        }
    }
}

extension IngestionDestination: DurabilityReporting {
    /// Closes the uploader now (on the executor): its log is released and the batch in flight,
    /// logged with its key, is left to the next opening.
    package func closeNow() -> Int {
        guard let uploader else { return 0 }
        uploader.close()
        return uploader.undurableEvents
    }
}
