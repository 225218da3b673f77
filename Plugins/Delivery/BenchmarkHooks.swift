import Foundation
import MetaRouterCore

/// What the benchmark package measures below the public API: gzip, the wire format and the
/// disk log's write volume. SPI, not public API: only a client that imports this module with
/// `@_spi(Benchmarks)` sees it, and it may change in any release.
@_spi(Benchmarks) public enum DeliveryBenchmarkHooks {
    /// `body` compressed as a request body would be, or `nil` without zlib.
    public static func gzip(_ body: [UInt8]) -> [UInt8]? { Gzip.compress(body) }

    /// The request body a batch of `events` makes for `writeKey`.
    public static func batchBody(of events: [Event], writeKey: String, sentAt: Date) -> Data {
        let format = MetaRouterBatchFormat(writeKey: writeKey)
        let queued = events.map { QueuedEvent(messageId: $0.messageId, timestamp: $0.timestamp, payload: format.encode($0)) }
        return format.body(for: queued, sentAt: sentAt)
    }

    /// Reads `destination`'s delivery counters from any thread, once it has joined a client.
    public static func statsReader(of destination: MetaRouterDestination) -> (@Sendable () -> DeliveryStats)? {
        guard let uploader = destination.uploader else { return nil }
        return { uploader.stats }
    }

    /// Bytes `store` has written to its segments since it opened.
    public static func bytesWritten(by store: DiskEventStore) -> Int { store.bytesWritten }
}
