import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// The log keeps only a bounded part of its queue in memory; everything else is read back from
/// the segments, verified, in order, through evictions, releases, restarts and damage.
@Suite struct DiskEventStoreResidencyTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))

    private func event(_ index: Int) -> QueuedEvent {
        QueuedEvent(
            messageId: "m-\(index)", timestamp: now,
            payload: Array("{\"n\":\(index),\"pad\":\"\(String(repeating: "y", count: index % 97))\"}".utf8))
    }

    private func open(_ directory: URL, configure: (inout DiskLogOptions) -> Void = { _ in }) throws -> DiskEventStore {
        var options = DiskLogOptions(directory: directory)
        options.residentBytes = 2_000
        options.segmentBytes = 16 * 1024
        configure(&options)
        return try DiskEventStore(options: options, clock: clock)
    }

    /// Every queued event has an index entry, so its size is the log's memory per event: a
    /// layout fact, not a timing. The resident events are kept beside the index, by sequence.
    @Test func anIndexEntryIs16Bytes() throws {
        #expect(MemoryLayout<EntryIndex.Slot>.stride == 16)
        var entry = DiskEventStore.Entry(sequence: 7, segment: SegmentFiles.maximumSegmentId - 1, offset: Int(UInt32.max), length: 90, payloadCount: 60)
        #expect(entry.segment == SegmentFiles.maximumSegmentId - 1 && entry.offset == Int(UInt32.max))
        entry.offset = 12
        #expect(entry.offset == 12 && entry.sequence == 7 && entry.length == 90 && entry.payloadCount == 60)
        var index = EntryIndex([entry])
        #expect(index[0].offset == 12 && index[0].sequence == 7 && index[0].length == 90 && index[0].payloadCount == 60)
        index[0].offset = Int(UInt32.max)
        #expect(index[0].offset == Int(UInt32.max) && index[0].segment == SegmentFiles.maximumSegmentId - 1)
    }

    @Test func segmentNamesAtOrAboveTheIdLimitAreForeign() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let foreign = directory.url.appendingPathComponent(String(format: "segment-%016llx.log", SegmentFiles.maximumSegmentId))
        try Data("not ours".utf8).write(to: foreign)
        let store = try open(directory.url)
        #expect(store.recovery.ignoredFiles == 1)
        fill(store, 0..<10)
        store.commit()
        #expect(FileManager.default.fileExists(atPath: foreign.path), "a file the log did not write is never deleted")
        store.close()
    }

    private func fill(_ store: DiskEventStore, _ range: Range<Int>) {
        for index in range {
            _ = store.append(event(index))
            if index % 25 == 24 { store.commit() }
        }
        store.commit()
    }

    private func drain(_ store: DiskEventStore, batch: Int = 40) -> [QueuedEvent] {
        var events: [QueuedEvent] = []
        while let next = store.nextBatch(maxCount: batch, maxBytes: .max) {
            events += next.events
            store.acknowledge(next)
            store.commit()
        }
        return events
    }

    /// The encoder leaves room in its arrays; a payload kept in memory keeps only its bytes.
    @Test func aResidentPayloadKeepsOnlyItsOwnBytes() {
        var roomy: [UInt8] = []
        roomy.reserveCapacity(1024)
        roomy.append(contentsOf: Array("{\"n\":1}".utf8))
        let kept = DiskEventStore.resident(QueuedEvent(messageId: "m", timestamp: now, payload: roomy))
        #expect(kept.payload == roomy)
        #expect(kept.payload.capacity < roomy.count + 64)
        let snug = event(1)
        #expect(DiskEventStore.resident(snug) == snug)
    }

    @Test func aQueueLargerThanTheBudgetIsHeldOnDiskAndReadBackInOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url)
        fill(store, 0..<3_000)
        #expect(store.count == 3_000)
        #expect(store.residentBytes <= 2_000)
        let delivered = drain(store)
        #expect(delivered.map(\.messageId) == (0..<3_000).map { "m-\($0)" })
        #expect(delivered.map(\.payload) == (0..<3_000).map { event($0).payload })
        #expect(store.unreadableRecords == 0)
    }

    /// The index grows by an eighth (at least a chunk) and gives its room back once delivered,
    /// so what it holds follows the queue instead of the largest power of two it ever passed.
    @Test func theIndexGrowsAndShrinksByWholeBlocks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.maxEvents = 100_000 }
        let block = EntryIndex.blockSize
        fill(store, 0..<(5 * block + 1))
        #expect(store.entries.count == 5 * block + 1)
        #expect(store.entries.capacity == 6 * block, "\(store.entries.capacity) slots for \(store.entries.count) entries")
        let delivered = drain(store, batch: 100)
        #expect(delivered.map(\.messageId) == (0..<(5 * block + 1)).map { "m-\($0)" })
        #expect(store.count == 0)
        #expect(store.entries.capacity <= block, "\(store.entries.capacity) slots for \(store.entries.count - store.head) queued")
        store.close()
    }

    /// The index against a plain array under random appends, reads, writes and dropped blocks,
    /// with now and then an entry no 16-byte slot holds: a sequence number far from its
    /// block's first (or before it), a payload of 16 MiB or more, a record far longer than its
    /// payload, a negative length as damage might give.
    @Test func theIndexActsAsAnArray() async throws {
        try await offThePool {
            var random = SeededRandom(seed: 53)
            var index = EntryIndex()
            var model: [DiskEventStore.Entry] = []
            var next: UInt64 = 1
            func entry(_ sequence: UInt64) -> DiskEventStore.Entry {
                let payload: Int32 = random.next(50) == 0 ? [1 << 24, Int32.max - 300, -5, 0][random.next(4)] : Int32(random.next(40_000))
                let overhead: Int32 = random.next(50) == 0 ? [256, 255, 70_000, -1][random.next(4)] : 74
                return DiskEventStore.Entry(
                    sequence: sequence, segment: UInt64(random.next(1 << 20)), offset: random.next(1 << 30),
                    length: payload.addingReportingOverflow(overhead).partialValue, payloadCount: payload)
            }
            func same(_ left: DiskEventStore.Entry, _ right: DiskEventStore.Entry) -> Bool {
                left.sequence == right.sequence && left.segment == right.segment && left.offset == right.offset
                    && left.length == right.length && left.payloadCount == right.payloadCount
            }
            for _ in 0..<2_000 {
                switch random.next(10) {
                case 0..<6:
                    for _ in 0..<random.next(3_000) {
                        if random.next(500) == 0 { next += [UInt64(UInt32.max) - 1, UInt64(UInt32.max), 1 << 40][random.next(3)] }
                        let added = entry(next)
                        index.append(added)
                        model.append(added)
                        next += 1
                    }
                case 6, 7:
                    guard !model.isEmpty else { continue }
                    let position = random.next(model.count)
                    let sequence = random.next(4) == 0 ? UInt64(random.next(1 << 20)) : model[position].sequence
                    let written = random.next(2) == 0 ? entry(sequence) : { var moved = model[position]; moved.offset = 7; return moved }()
                    index[position] = written
                    model[position] = written
                default:
                    let blocks = random.next(3)
                    index.dropBlocks(blocks)
                    model.removeFirst(min(model.count, blocks * EntryIndex.blockSize))
                }
                guard index.count == model.count, index.capacity - index.count < EntryIndex.blockSize || index.count == 0 else {
                    Issue.record("count \(index.count) against \(model.count), capacity \(index.capacity)")
                    return
                }
            }
            #expect(model.count > EntryIndex.blockSize)
            let differing = zip(index, model).filter { !same($0, $1) }.count
            #expect(differing == 0, "\(differing) of \(model.count) entries read back differently")
        }
    }

    @Test func evictedAndRemovedEventsAreReportedWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.maxEvents = 500 }
        var evicted: [QueuedEvent] = []
        for index in 0..<1_200 {
            evicted += store.append(event(index))
            if index % 25 == 24 { store.commit() }
        }
        #expect(evicted.map(\.messageId) == (0..<700).map { "m-\($0)" })
        #expect(evicted.map(\.payload) == (0..<700).map { event($0).payload })
        store.commit()
        let removed = store.removeAll()
        #expect(removed.map(\.messageId) == (700..<1_200).map { "m-\($0)" })
        #expect(removed.map(\.payload) == (700..<1_200).map { event($0).payload })
    }

    @Test func aReleasedBatchComesBackWithTheSameEvents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url)
        fill(store, 0..<400)
        for _ in 0..<3 {
            let batch = try #require(store.nextBatch(maxCount: 150, maxBytes: .max))
            store.release(batch)
            store.commit()
        }
        #expect(drain(store).map(\.messageId) == (0..<400).map { "m-\($0)" })
    }

    /// Opening a backlog indexes it where it lies: nothing is rewritten, nothing is held in
    /// memory beyond the pending batch, and every event comes back in order.
    @Test func reopeningABacklogIndexesItWithoutRewritingIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key: String
        do {
            let store = try open(directory.url)
            fill(store, 0..<2_000)
            let batch = try #require(store.nextBatch(maxCount: 30, maxBytes: .max))
            key = batch.idempotencyKey
            store.close()
        }
        let reopened = try open(directory.url)
        #expect(reopened.recovery.recovered == 2_000)
        #expect(reopened.bytesWritten < 200)
        #expect(reopened.residentBytes == 0)
        let first = try #require(reopened.nextBatch(maxCount: 100, maxBytes: .max))
        #expect(first.idempotencyKey == key)
        #expect(first.events.map(\.messageId) == (0..<30).map { "m-\($0)" })
        reopened.acknowledge(first)
        reopened.commit()
        fill(reopened, 2_000..<2_100)
        reopened.close()
        let again = try open(directory.url)
        #expect(drain(again).map(\.messageId) == (30..<2_100).map { "m-\($0)" })
    }

    /// Ages and caps applied at opening stay applied: what they dropped does not come back
    /// at the next opening with looser limits.
    @Test func whatRecoveryDropsStaysDropped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url)
            fill(store, 0..<100)
            store.close()
        }
        do {
            let capped = try open(directory.url) { $0.maxEvents = 40 }
            #expect(capped.recovery.overCap == 60)
            capped.close()
        }
        #expect(drain(try open(directory.url)).map(\.messageId) == (60..<100).map { "m-\($0)" })
    }

    /// A segment damaged behind the log's back loses only the events whose records are
    /// damaged: they are counted and dropped, and the rest is delivered in order.
    @Test func damageBehindTheLogsBackDropsOnlyTheDamagedEvents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.segmentBytes = 1 << 30 }
        fill(store, 0..<1_000)
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(at: directory.url, includingPropertiesForKeys: nil)
                .first { $0.lastPathComponent.hasPrefix("segment-") })
        let handle = try FileHandle(forUpdating: segment)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xAB, count: 64))
        try handle.close()
        let delivered = drain(store).map(\.messageId)
        #expect(store.unreadableRecords > 0)
        #expect(store.unreadableRecords < 5)
        #expect(delivered.count == 1_000 - store.unreadableRecords)
        #expect(delivered == (0..<1_000).map { "m-\($0)" }.filter { delivered.contains($0) })
        #expect(store.count == 0)
    }
}
