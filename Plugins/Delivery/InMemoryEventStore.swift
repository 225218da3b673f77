import Foundation
import MetaRouterCore

/// The in-memory queue, with drop-oldest eviction at `capacity`.
///
/// Queued events' bytes sit back to back in large chunks, with one small index entry per event,
/// instead of one heap array and one `String` per event: a queue of 100,000 events behind a
/// failing host costs little more than their encoded bytes (`Benchmarks/README.md`). The
/// messageId is not stored twice: the entry points at its bytes inside the payload (a format
/// that does not write it gets it stored after the payload). Events are rebuilt as
/// ``QueuedEvent`` values only when a batch is taken, evicted or removed.
package final class InMemoryEventStore: EventStore {
    /// Where one event's bytes are. Offsets are within the event's chunk; the messageId's start
    /// is relative to the payload's.
    private struct Entry {
        var chunk: Int
        var offset: UInt32
        var length: UInt32
        var idStart: UInt32
        var idLength: UInt32
        var timestamp: TimeInterval
    }

    /// The size of a chunk of event bytes (an event larger than this gets a chunk of its own).
    private static let chunkSize = 256 * 1024

    private var chunks: [[UInt8]] = []
    /// The number of `chunks[0]`; chunk numbers only grow.
    private var firstChunk = 0
    private var entries: [Entry] = []
    /// The first queued entry that is not in the pending batch.
    private var head = 0
    /// The pending batch and where its entries are (before `head`; evictions while it is out
    /// may leave a gap between the two).
    private var pending: (batch: PendingBatch, range: Range<Int>)?
    private let capacity: Int
    /// Room beyond `capacity` for a backlog arriving at once (``makeRoom(forMore:)``).
    private var extraRoom = 0

    /// A store holding at most `capacity` events (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Events held, the pending batch included.
    package var count: Int { entries.count - head + (pending?.range.count ?? 0) }

    /// Appends; evicts the oldest non-pending event when full. An event whose bytes could not
    /// be indexed (4 GB or more) is refused, as when every held event is pending.
    package func append(_ event: QueuedEvent) -> [QueuedEvent] {
        let id = Array(event.messageId.utf8)
        let idInPayload = Self.position(of: id, in: event.payload)
        let needed = event.payload.count + (idInPayload == nil ? id.count : 0)
        guard needed < Int(UInt32.max) else { return [event] }
        var evicted: [QueuedEvent] = []
        // Saturating: a capacity of `Int.max` is valid.
        if count >= (capacity > Int.max - extraRoom ? Int.max : capacity + extraRoom) {
            guard head < entries.count else { return [event] }
            evicted.append(queuedEvent(entries[head]))
            head += 1
        }
        if chunks.isEmpty || chunks[chunks.count - 1].capacity - chunks[chunks.count - 1].count < needed {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(max(Self.chunkSize, needed))
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        let offset = chunks[last].count
        chunks[last].append(contentsOf: event.payload)
        if idInPayload == nil { chunks[last].append(contentsOf: id) }
        entries.append(Entry(
            chunk: firstChunk + last, offset: UInt32(offset), length: UInt32(event.payload.count),
            idStart: UInt32(idInPayload ?? event.payload.count), idLength: UInt32(id.count),
            timestamp: event.timestamp.timeIntervalSinceReferenceDate))
        releaseUnused()
        return evicted
    }

    /// The pending batch, or a new one from the head.
    package func nextBatch(maxCount: Int, maxBytes: Int) -> PendingBatch? {
        if let pending { return pending.batch }
        guard head < entries.count else { return nil }
        let range = head..<batchEnd(maxCount: maxCount, maxBytes: maxBytes)
        head = range.upperBound
        let batch = PendingBatch(idempotencyKey: RandomIdentifier.uuidString(lowercase: true), events: entries[range].map(queuedEvent))
        pending = (batch, range)
        return batch
    }

    /// The events after the pending batch that the next one would take.
    package func upcoming(maxCount: Int, maxBytes: Int) -> [QueuedEvent] {
        entries[head..<batchEnd(maxCount: maxCount, maxBytes: maxBytes)].map(queuedEvent)
    }

    /// Where a batch taken from `head` would end: at most `maxCount` events and `maxBytes`
    /// bytes, always at least one event when there is one.
    private func batchEnd(maxCount: Int, maxBytes: Int) -> Int {
        var end = head
        var bytes = 0
        while end < entries.count, end - head < max(1, maxCount) {
            let length = Int(entries[end].length)
            if end > head, bytes + length > maxBytes { break }
            bytes += length
            end += 1
        }
        return end
    }

    /// Drops the pending batch.
    package func acknowledge(_ batch: PendingBatch) {
        guard let current = pending, current.batch.idempotencyKey == batch.idempotencyKey else { return }
        pending = nil
        extraRoom = max(0, extraRoom - current.range.count)
        releaseUnused()
    }

    /// Raises the limit by `count` until as many events have been acknowledged.
    package func makeRoom(forMore count: Int) { extraRoom += max(0, count) }

    /// Puts the pending batch's events back at the head.
    package func release(_ batch: PendingBatch) {
        guard let (held, range) = pending, held.idempotencyKey == batch.idempotencyKey else { return }
        pending = nil
        if range.upperBound != head {
            // Events after the batch were evicted while it was out: close the gap.
            let moved = Array(entries[range])
            entries.replaceSubrange((head - moved.count)..<head, with: moved)
        }
        head -= range.count
    }

    /// Empties the store.
    package func removeAll() -> [QueuedEvent] {
        let removed = (pending?.batch.events ?? []) + entries[head...].map(queuedEvent)
        firstChunk += chunks.count
        chunks = []
        entries = []
        head = 0
        pending = nil
        return removed
    }

    private func queuedEvent(_ entry: Entry) -> QueuedEvent {
        chunks[entry.chunk - firstChunk].withUnsafeBufferPointer { bytes in
            let start = Int(entry.offset)
            let payload = Array(bytes[start..<(start + Int(entry.length))])
            let idStart = start + Int(entry.idStart)
            let id = String(decoding: bytes[idStart..<(idStart + Int(entry.idLength))], as: UTF8.self)
            return QueuedEvent(
                messageId: id, timestamp: Date(timeIntervalSinceReferenceDate: entry.timestamp), payload: payload)
        }
    }

    /// Frees the chunks and index entries that no held event uses any more.
    private func releaseUnused() {
        let firstHeld = pending?.range.lowerBound ?? head
        let firstUsedChunk = firstHeld < entries.count ? entries[firstHeld].chunk : firstChunk + chunks.count - 1
        let unused = firstUsedChunk - firstChunk
        if unused > 0 {
            chunks.removeFirst(unused)
            firstChunk += unused
        }
        if firstHeld > 1024, firstHeld * 2 > entries.count {
            entries.removeFirst(firstHeld)
            head -= firstHeld
            if let (batch, range) = pending {
                pending = (batch, (range.lowerBound - firstHeld)..<(range.upperBound - firstHeld))
            }
        }
    }

    /// Where `needle` starts in `haystack`, or `nil`.
    private static func position(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                guard let hayBase = hay.baseAddress, let pinBase = pin.baseAddress else { return nil }
                var from = 0
                let lastStart = hay.count - pin.count
                while from <= lastStart {
                    guard let found = memchr(hayBase + from, Int32(first), lastStart - from + 1) else { return nil }
                    let index = hayBase.distance(to: UnsafeRawPointer(found))
                    if memcmp(hayBase + index, pinBase, pin.count) == 0 { return index }
                    from = index + 1
                }
                return nil
            }
        }
    }
}
