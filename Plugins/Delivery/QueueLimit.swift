/// The queue limit a delivering destination actually enforces: the disk log's caps when the
/// log is open, the in-memory capacity when the disk is off or could not be opened.
package struct QueueLimit: Sendable, Hashable {
    /// Where queued events are kept.
    package enum Storage: String, Sendable, Hashable {
        /// In the durable event log (and in memory as an index).
        case disk
        /// In memory only: lost with the process.
        case memory
    }

    /// Where queued events are kept.
    package var storage: Storage
    /// Events held at most; the oldest are dropped beyond it.
    package var maxEvents: Int
    /// Payload bytes held at most, when there is such a cap (the disk log's).
    package var maxBytes: Int?

    /// Creates a limit.
    package init(storage: Storage, maxEvents: Int, maxBytes: Int? = nil) {
        self.storage = storage
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
    }
}
