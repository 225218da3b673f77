#if Privacy && CrashCapture
import Foundation
import MetaRouterAdvertisingID

// What the benchmark package measures below the public API, in one place: the built-ins it puts
// in a pipeline it assembles without the facade, gzip, the wire format, delivery counters, the
// disk log. SPI, not public API: only a client that imports this module with
// `@_spi(Benchmarks)` sees it, and it may change in any release.

/// The benchmark hooks:
/// - `eventJSONBytes`: an event encoded as it is queued;
/// - `advertisingIDPlugin`, `scrubber` (scrubbing on): the plugins as the facade adds them;
/// - `breadcrumbs`: a breadcrumbs plugin keeping `capacity` breadcrumbs and the function that
///   adds one; with a crash directory each is also copied into a crash plugin's slots there;
/// - `gzip`: a compressor reused for each body, as an uploader's is (`nil` without zlib), and
///   a body compressed by a compressor made for it alone;
/// - `batchBody`: the request body a batch of events makes for a write key;
/// - `statsReader`: reads a MetaRouter destination's delivery counters from any thread, once it
///   has joined a client;
/// - `diskLog`: the disk log in a directory (opened or recovered) and its executor-side
///   operations, or `nil` when it cannot be opened.
@_spi(Benchmarks) public func benchmarkHooks() -> (
    eventJSONBytes: (Event) -> [UInt8],
    advertisingIDPlugin: () -> any Plugin,
    scrubber: () -> any Plugin,
    breadcrumbs: (_ capacity: Int, _ crashDirectory: URL?) -> (plugin: any Plugin, add: (Breadcrumb) -> Void),
    gzip: () -> ((Data) -> Data?)?,
    gzipOnce: (Data) -> Data?,
    batchBody: (_ events: [Event], _ writeKey: String, _ sentAt: Date) -> Data,
    statsReader: (any DestinationPlugin) -> (@Sendable () -> DeliveryStats)?,
    diskLog: (URL) -> (
        append: (_ messageId: String, _ payload: [UInt8]) -> Void, commit: () -> Void, deliverBatch: (_ maxCount: Int) -> Void,
        sync: () -> Void, count: () -> Int, bytesWritten: () -> Int
    )?
) {
    (
        eventJSONBytes: { $0.jsonBytes() },
        advertisingIDPlugin: { AdvertisingIDPlugin() },
        scrubber: { PIIScrubPlugin(enabled: true) },
        breadcrumbs: { capacity, crashDirectory in
            let plugin = BreadcrumbsPlugin(capacity: capacity)
            if let crashDirectory { plugin.crashSlots = CrashReportPlugin(directory: crashDirectory).slots }
            return (plugin, { plugin.add($0) })
        },
        gzip: { GzipCompressor().map { compressor in { compressor.compress($0) } } },
        gzipOnce: { GzipCompressor()?.compress($0) },
        batchBody: { events, writeKey, sentAt in
            let format = MetaRouterBatchFormat(writeKey: writeKey)
            let queued = events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: format.encode($0)) }
            return format.body(for: queued, sentAt: sentAt)
        },
        statsReader: { destination in
            guard let stats = (destination as? DurableDestination)?.uploader?.statsBox else { return nil }
            return { stats.current }
        },
        diskLog: { directory in
            guard let store = try? DiskEventStore(options: DiskLogOptions(directory: directory)) else { return nil }
            return (
                append: { _ = store.append(QueuedEvent(messageId: $0, timestamp: Date(), payload: $1)) },
                commit: { store.commit() },
                deliverBatch: { if let batch = store.nextBatch(maxCount: $0, maxBytes: .max) { store.acknowledge(batch) } },
                sync: { store.sync() }, count: { store.count }, bytesWritten: { store.bytesWritten }
            )
        }
    )
}
#endif
