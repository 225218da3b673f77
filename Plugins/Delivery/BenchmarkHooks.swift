import Foundation
import MetaRouterCore

/// What the benchmark package measures below the public API: gzip, the wire format and the
/// disk log's write volume. SPI, not public API: only a client that imports this module with
/// `@_spi(Benchmarks)` sees it, and it may change in any release.
@_spi(Benchmarks) public enum DeliveryBenchmarkHooks {
    /// `body` compressed as a request body would be, or `nil` without zlib.
    @_spi(Benchmarks) public static func gzip(_ body: [UInt8]) -> [UInt8]? { Gzip.compress(body) }

    /// The request body a batch of `events` makes for `writeKey`.
    @_spi(Benchmarks) public static func batchBody(of events: [Event], writeKey: String, sentAt: Date) -> Data {
        let format = MetaRouterBatchFormat(writeKey: writeKey)
        let queued = events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: format.encode($0)) }
        return format.body(for: queued, sentAt: sentAt)
    }

    /// Reads `destination`'s delivery counters from any thread, once it has joined a client.
    @_spi(Benchmarks) public static func statsReader(of destination: any DestinationPlugin) -> (@Sendable () -> DeliveryStats)? {
        guard let stats = (destination as? IngestionDestination)?.uploader?.statsBox else { return nil }
        return { stats.current }
    }

    /// The disk log in `directory` (opened, or recovered when it holds one), or `nil` when it
    /// cannot be opened.
    @_spi(Benchmarks) public static func openDiskLog(directory: URL) -> DiskLogProbe? {
        (try? DiskEventStore(options: DiskLogOptions(directory: directory))).map(DiskLogProbe.init)
    }
}

/// The disk log's executor-side operations, for the benchmarks that measure them.
@_spi(Benchmarks) public struct DiskLogProbe {
    let store: DiskEventStore

    /// Appends one event's record.
    @_spi(Benchmarks) public func append(messageId: String, payload: [UInt8]) {
        _ = store.append(QueuedEvent(messageId: messageId, timestamp: Date(), payload: payload))
    }
    /// Writes what was appended since the last commit.
    @_spi(Benchmarks) public func commit() { store.commit() }
    /// Takes the next batch of up to `maxCount` events and acknowledges it, as a delivered one is.
    @_spi(Benchmarks) public func deliverBatch(maxCount: Int) {
        if let batch = store.nextBatch(maxCount: maxCount, maxBytes: .max) { store.acknowledge(batch) }
    }
    /// Commits and `fsync`s.
    @_spi(Benchmarks) public func sync() { store.sync() }
    /// Events held.
    @_spi(Benchmarks) public var count: Int { store.count }
    /// Bytes written to the segments since the log opened.
    @_spi(Benchmarks) public var bytesWritten: Int { store.bytesWritten }
}
