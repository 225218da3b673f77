import Foundation
import MetaRouterCore

// What the benchmark package measures below the public API: gzip, the wire format, delivery
// counters and the disk log. SPI, not public API: only a client that imports this module with
// `@_spi(Benchmarks)` sees it, and it may change in any release.

/// `body` compressed as a request body would be, or `nil` without zlib.
@_spi(Benchmarks) public func benchmarkGzip(_ body: [UInt8]) -> [UInt8]? { Gzip.compress(body) }

/// The request body a batch of `events` makes for `writeKey`.
@_spi(Benchmarks) public func benchmarkBatchBody(of events: [Event], writeKey: String, sentAt: Date) -> Data {
    let format = MetaRouterBatchFormat(writeKey: writeKey)
    let queued = events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: format.encode($0)) }
    return format.body(for: queued, sentAt: sentAt)
}

/// Reads `destination`'s delivery counters from any thread, once it has joined a client.
@_spi(Benchmarks) public func benchmarkStatsReader(of destination: any DestinationPlugin) -> (@Sendable () -> DeliveryStats)? {
    guard let stats = (destination as? IngestionDestination)?.uploader?.statsBox else { return nil }
    return { stats.current }
}

/// The disk log in `directory` (opened, or recovered when it holds one) and its executor-side
/// operations — append a record, commit, take and acknowledge a batch of up to N events, sync,
/// events held, bytes written — or `nil` when it cannot be opened.
@_spi(Benchmarks) public func benchmarkDiskLog(directory: URL) -> (
    append: (_ messageId: String, _ payload: [UInt8]) -> Void, commit: () -> Void, deliverBatch: (_ maxCount: Int) -> Void,
    sync: () -> Void, count: () -> Int, bytesWritten: () -> Int
)? {
    guard let store = try? DiskEventStore(options: DiskLogOptions(directory: directory)) else { return nil }
    return (
        append: { _ = store.append(QueuedEvent(messageId: $0, timestamp: Date(), payload: $1)) },
        commit: { store.commit() },
        deliverBatch: { if let batch = store.nextBatch(maxCount: $0, maxBytes: .max) { store.acknowledge(batch) } },
        sync: { store.sync() }, count: { store.count }, bytesWritten: { store.bytesWritten }
    )
}
