import Foundation
import MetaRouterCore

/// An event as a queue holds it: already encoded for the wire, so batching, byte caps and disk
/// records never encode it again.
package struct QueuedEvent: Sendable, Hashable {
    /// The event's messageId.
    package var messageId: String
    /// The event's timestamp (for the age limit of stored events).
    package var timestamp: Date
    /// The encoded event, without `sentAt`.
    package var payload: [UInt8]

    /// Creates a queued event.
    package init(messageId: String, timestamp: Date, payload: [UInt8]) {
        self.messageId = messageId
        self.timestamp = timestamp
        self.payload = payload
    }
}

/// A batch taken from the head of a store. It stays at the head — counted, never evicted —
/// until it is acknowledged or released, so a retry re-sends the same events under the same
/// `idempotencyKey`.
package struct PendingBatch: Sendable, Hashable {
    /// One key per batch, reused on every retry of it.
    package var idempotencyKey: String
    /// The events, oldest first.
    package var events: [QueuedEvent]

    /// Creates a batch.
    package init(idempotencyKey: String = UUID().uuidString.lowercased(), events: [QueuedEvent]) {
        self.idempotencyKey = idempotencyKey
        self.events = events
    }
}

/// The queue behind a delivering destination. The in-memory store ships with delivery; the
/// durable disk log slots in behind the same protocol.
///
/// Stores are confined to their destination's executor; they need no locks.
package protocol EventStore: AnyObject {
    /// Events held, the pending batch included.
    var count: Int { get }
    /// Appends an event at the tail. When the store is full, the oldest event that is not in
    /// the pending batch is evicted (or, if every event is pending, the new one is refused);
    /// what was evicted is returned.
    func append(_ event: QueuedEvent) -> [QueuedEvent]
    /// The pending batch if there is one, else a new one of up to `maxCount` events and
    /// `maxBytes` payload bytes (always at least one event), or `nil` when empty.
    func nextBatch(maxCount: Int, maxBytes: Int) -> PendingBatch?
    /// The events the batch after the pending one would hold, if it were taken now with the
    /// same limits, without taking them: a look ahead, so its body can be made while the
    /// pending batch is in flight. Empty when the store cannot tell cheaply.
    func upcoming(maxCount: Int, maxBytes: Int) -> [QueuedEvent]
    /// Removes the pending batch: it was delivered, or dropped for good.
    func acknowledge(_ batch: PendingBatch)
    /// Raises the event limit by `count` for a backlog arriving at once; the extra room
    /// shrinks by every event acknowledged until it is gone. The byte limits stay.
    func makeRoom(forMore count: Int)
    /// Returns the pending batch's events to the head as ordinary events (a new key will be
    /// minted), e.g. after the batch size was halved.
    func release(_ batch: PendingBatch)
    /// Removes everything, the pending batch included; returns what was removed.
    func removeAll() -> [QueuedEvent]
    /// Told, after each answer, whether the host is failing (a retry waits) or answered: a
    /// durable store keeps less in memory while nothing can leave.
    func noteHost(failing: Bool)
    /// Whether changes are waiting for ``commit()``.
    var hasUncommittedRecords: Bool { get }
    /// Writes the changes made since the last commit (a durable store groups them).
    func commit()
    /// Commits and makes the changes durable (`fsync`) before returning: for background,
    /// terminate and shutdown.
    func sync()
    /// Commits, and makes the changes durable soon without waiting for the disk: the grouped
    /// `fsync` while events flow, which must not hold up the executor.
    func requestSync()
    /// Makes everything durable and releases what the store holds (files, locks); called once
    /// at shutdown. Later calls change nothing on disk.
    func close()
}

extension EventStore {
    /// A store in memory has nothing to commit.
    package var hasUncommittedRecords: Bool { false }
    /// A store in memory holds every event in memory either way.
    package func noteHost(failing: Bool) {}
    /// Nothing to write.
    package func commit() {}
    /// Nothing to write.
    package func sync() {}
    /// A store without a background path syncs in place.
    package func requestSync() { sync() }
    /// Nothing to release.
    package func close() {}
}
