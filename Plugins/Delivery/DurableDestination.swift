import Foundation
import MetaRouterCore

/// A destination of your own on the SDK's delivery engine: the crash-safe disk log, batching by
/// count and bytes, one request at a time in order, retries with backoff and the circuit
/// breaker, `Retry-After`, 413 splitting, the same idempotency id for a batch across retries
/// and restarts, `flushAndWait` and `shutdown` coverage, and its figures in
/// `getDebugInfo().destinations[key]`. The ``DeliveryFormat`` decides only the request and what
/// an answer means. The built-in MetaRouter destination is one of these. See
/// `Docs/Destinations.md`. Like any plugin it belongs to one instance at a time
/// (`Docs/Plugins.md`).
///
/// ```swift
/// analytics.add(plugin: DurableDestination(key: "Amplitude", format: AmplitudeFormat(apiKey: key)))
/// ```
public final class DurableDestination: DestinationPlugin, CompletingPlugin, LifecycleAware {
    public let key: String
    public let timeline = Timeline()
    /// The delivery engine (available once configured).
    package private(set) var uploader: BatchUploader?
    /// Why the disk log could not be used, when it could not (the queue is then in memory).
    package private(set) var storageError: String?
    /// The queue limit in force once joined: the disk log's caps, or the in-memory capacity
    /// when the log is off or could not be opened.
    package private(set) var queueLimit: QueueLimit?
    /// What opening the disk log found.
    package private(set) var recovery: DiskEventStore.RecoveryReport?
    /// The consent categories an event must grant to be queued here.
    package let consentCategories: [String]
    /// The transport a format destination sends through (the SDK's default unless set before
    /// it joins; the benchmarks set an in-memory one).
    package var transport: (any HTTPTransport)?

    private let setup: Setup

    /// Where the wire and the engine's settings come from.
    enum Setup {
        case metaRouter(MetaRouterDestination.Options)
        case format(any DeliveryFormat, DurableDestinationOptions)
    }

    /// A destination called `key` that delivers through `format`.
    ///
    /// - Parameters:
    ///   - key: The destination's name: how rules, `integrations` and `getDebugInfo()` address
    ///     it, and the name of its disk log under the instance's storage directory (any text;
    ///     the directory's name is derived from it and cannot leave the storage directory).
    ///   - format: How a batch becomes a request, and what the host's answer means.
    ///   - options: Batching, waiting, the disk cap, gzip and the consent it needs.
    public init(key: String, format: any DeliveryFormat, options: DurableDestinationOptions = .init()) {
        self.key = key
        setup = .format(format, options)
        consentCategories = options.consentCategories
    }

    /// The built-in MetaRouter destination.
    package init(metaRouter options: MetaRouterDestination.Options) {
        key = MetaRouterDestination.key
        setup = .metaRouter(options)
        consentCategories = []
    }

    public func configure(analytics: AnalyticsClient) {
        let engine = settings(for: analytics, setup: setup)
        let policies: [any FlushPolicy] = [
            CountFlushPolicy(count: engine.upload.flushAt), IntervalFlushPolicy(seconds: engine.upload.flushIntervalSeconds),
        ]
        let uploader = BatchUploader(
            options: engine.upload,
            store: makeStore(analytics, disk: engine.disk, memoryCapacity: engine.upload.maxQueueEvents),
            wire: engine.wire,
            transport: engine.transport ?? HTTPTransports.standard(timeout: engine.upload.requestTimeout),
            policies: policies,
            breakerRandom: engine.breakerRandom,
            onPermanentFailure: engine.onPermanentFailure)
        uploader.start(analytics: analytics)
        self.uploader = uploader
    }

    private func makeStore(_ analytics: AnalyticsClient, disk: DiskLogOptions?, memoryCapacity: Int) -> any EventStore {
        let memoryLimit = QueueLimit(storage: .memory, maxEvents: memoryCapacity)
        guard let disk else {
            queueLimit = memoryLimit
            return InMemoryEventStore(capacity: memoryCapacity)
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
            return InMemoryEventStore(capacity: memoryCapacity)
        }
    }

    public func execute(event: Event) -> Event? {
        guard consents(to: event) else { return event }
        uploader?.enqueue(event)
        return event
    }

    public func flush() { uploader?.flush() }

    public func flush(completion: @escaping @Sendable () -> Void) {
        guard let uploader else { return completion() }
        uploader.flush(completion: completion)
    }

    public func reset() { uploader?.reset() }

    public func shutdown() { uploader?.close() }

    public func applicationDidEnterForeground() {
        uploader?.resumeTimers()
        uploader?.flush()
    }

    public func applicationDidEnterBackground() {
        uploader?.flush()
        uploader?.persist()
        uploader?.pauseTimers()
    }

    public func applicationWillTerminate() { uploader?.persist() }

    public func shutdown(completion: @escaping @Sendable () -> Void) {
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

extension DurableDestination: DurabilityReporting {
    /// Closes the uploader now (on the executor): its log is released and the batch in flight,
    /// logged with its key, is left to the next opening.
    package func closeNow() -> Int {
        guard let uploader else { return 0 }
        uploader.close()
        return uploader.undurableEvents
    }
}
