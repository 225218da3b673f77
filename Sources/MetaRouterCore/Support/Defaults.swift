import Foundation

/// The SDK's default numbers, in one place: `InitOptions`, the built-in plugins' options, the
/// executor and the transports all take them from here, so a default changes in one line.
///
/// `@usableFromInline` because public initializers name them in their default arguments.
@usableFromInline package enum Defaults {
    /// Queued events that start an upload.
    @usableFromInline package static let flushAt = 20
    /// Seconds between timed uploads.
    @usableFromInline package static let flushIntervalSeconds = 10
    /// Events queued in memory when the disk log is off or cannot be opened.
    @usableFromInline package static let maxQueueEvents = 2_000
    /// Events the disk log keeps.
    @usableFromInline package static let maxDiskEvents = 10_000
    /// Bytes of queued records the disk log keeps.
    @usableFromInline package static let maxDiskBytes = 50 * 1024 * 1024
    /// The smallest `maxDiskBytes` accepted while the disk log is on (64 KiB): four of the
    /// smallest segments, the least that holds a pending batch, the records being written and
    /// the queue behind them within the cap plus one segment (`Docs/Persistence.md`).
    @usableFromInline package static let minDiskBytes = 64 * 1024
    /// How long a record may stay on the device.
    @usableFromInline package static let maxDiskAgeSeconds: TimeInterval = 7 * 24 * 3600
    /// Events accepted from callers and not yet through the pipeline.
    @usableFromInline package static let maxPendingEvents = 50_000
    /// Seconds one upload request may take.
    @usableFromInline package static let requestTimeoutSeconds: TimeInterval = 15
    /// Events in one upload request.
    @usableFromInline package static let maxBatchSize = 100
    /// Bytes of one upload request's body (the ingestion API takes up to 500 KB).
    @usableFromInline package static let maxBatchBytes = 500_000
    /// Bytes of a response body a transport keeps.
    @usableFromInline package static let maxResponseBytes = 1 << 20
    /// Seconds `shutdown` waits for the plugins to deliver or persist.
    @usableFromInline package static let shutdownTimeoutSeconds: TimeInterval = 10
}
