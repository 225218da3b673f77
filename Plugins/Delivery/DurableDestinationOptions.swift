import Foundation
import MetaRouterCore

/// How a ``DurableDestination`` batches, waits and stores. Every field has a default; change
/// only what your vendor needs.
public struct DurableDestinationOptions: Sendable {
    /// Events per request at most (default 100); a batch is also sent as soon as this many wait.
    public var maxBatchEvents = Defaults.maxBatchSize
    /// Bytes of queued events per request at most, before gzip (default 500 KB); an event larger
    /// than this goes alone (if the host answers 413 for it, it is dropped, counted `tooLarge`).
    public var maxBatchBytes = Defaults.maxBatchBytes
    /// Seconds events wait at most before a timed send (default 10).
    public var flushIntervalSeconds = Defaults.flushIntervalSeconds
    /// Bytes the destination's disk log may hold (default 50 MiB, at least 64 KiB), and at most
    /// 10,000 events; past either the oldest events are dropped, counted `queueFull`. `0` keeps
    /// the queue in memory only (the newest 2,000 events), lost with the process.
    public var maxDiskBytes = Defaults.maxDiskBytes
    /// Whether request bodies are gzip-compressed (`Content-Encoding: gzip`); off by default.
    public var gzip = false
    /// The consent categories this destination needs (Segment Consent Management's names, e.g.
    /// `"Advertising"`): with the Privacy trait on, an event reaches the destination only when
    /// the user has granted every one, and withdrawing one drops the events it has not sent
    /// yet, counted `consent`. Empty (the default): the destination needs none.
    public var consentCategories: [String] = []

    /// The defaults.
    public init() {}
}
