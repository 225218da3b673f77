import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

@Suite struct DiskEventStoreTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))

    private func event(_ index: Int, age: TimeInterval = 0, size: Int = 40) -> QueuedEvent {
        QueuedEvent(
            messageId: "m-\(index)", timestamp: now.addingTimeInterval(-age),
            payload: Array("{\"n\":\(index),\"pad\":\"\(String(repeating: "x", count: size))\"}".utf8))
    }

    private func open(_ directory: URL, configure: (inout DiskLogOptions) -> Void = { _ in }) throws -> DiskEventStore {
        var options = DiskLogOptions(directory: directory)
        configure(&options)
        return try DiskEventStore(options: options, clock: clock)
    }

    private func drain(_ store: DiskEventStore) -> [String] {
        var ids: [String] = []
        while let batch = store.nextBatch(maxCount: 1000, maxBytes: .max) {
            ids += batch.events.map(\.messageId)
            store.acknowledge(batch)
        }
        return ids
    }

    /// Appends events `indices`, committing after every ten (as the executor groups writes).
    private func append(_ indices: Range<Int>, to store: DiskEventStore) {
        for index in indices {
            _ = store.append(event(index))
            if index % 10 == 9 { store.commit() }
        }
    }

    private func segmentFiles(_ directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix("segment-") }.sorted { $0.path < $1.path }
    }

    @Test func recordsRoundTrip() {
        let records: [LogRecord] = [
            .event(sequence: 7, timestampMillis: -5, storedMillis: -5, messageId: "id", payload: [1, 2, 3]),
            .removed([1...3, 9...9]), .batch(key: "key", ranges: [4...6]),
            .clock(boot: "boot", offsetMillis: -7, wallOffsetMillis: 1 << 40),
        ]
        let bytes = LogRecord.fileHeader + records.flatMap { $0.encoded() }
        #expect(SegmentReader.read(bytes).records.map(\.record) == records)
        #expect(LogRecord.ranges([5, 1, 2, 3, 9]) == [1...3, 5...5, 9...9])
    }

    /// The look ahead names the events the next batch takes — resident or read back from the
    /// segments — and takes nothing.
    @Test func upcomingIsTheNextBatchAndTakesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.residentBytes = 200 }
        append(0..<30, to: store)
        store.commit()
        let first = try #require(store.nextBatch(maxCount: 8, maxBytes: .max))
        let ahead = store.upcoming(maxCount: 8, maxBytes: .max)
        #expect(ahead.map(\.messageId) == (8..<16).map { "m-\($0)" })
        #expect(store.upcoming(maxCount: 8, maxBytes: 130).count == 2)
        #expect(store.count == 30)
        store.acknowledge(first)
        let second = try #require(store.nextBatch(maxCount: 8, maxBytes: .max))
        #expect(second.events == ahead)
        #expect(drain(store).count == 22)
    }

    @Test func recoversInOrderAcrossReopen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url)
            for index in 0..<50 { _ = store.append(event(index)) }
            let batch = try #require(store.nextBatch(maxCount: 10, maxBytes: .max))
            store.acknowledge(batch)
            store.commit()
        }
        let reopened = try open(directory.url)
        #expect(reopened.recovery.recovered == 40)
        #expect(drain(reopened) == (10..<50).map { "m-\($0)" })
    }

    @Test func uncommittedRecordsAreNotOnDiskButCommittedOnesAre() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url)
            _ = store.append(event(1))
            store.commit()
            _ = store.append(event(2))
        }
        #expect(drain(try open(directory.url)) == ["m-1"])
    }

    @Test func pendingBatchKeepsItsIdempotencyKeyAcrossRestart() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key: String
        do {
            let store = try open(directory.url)
            for index in 0..<5 { _ = store.append(event(index)) }
            let batch = try #require(store.nextBatch(maxCount: 3, maxBytes: .max))
            key = batch.idempotencyKey
            store.commit()
        }
        let reopened = try open(directory.url)
        let again = try #require(reopened.nextBatch(maxCount: 100, maxBytes: .max))
        #expect(again.idempotencyKey == key)
        #expect(again.events.map(\.messageId) == ["m-0", "m-1", "m-2"])
    }

    /// A segment holding the pending batch's key record but no queued event is deleted as dead
    /// (at a restart, or when the cap evicts the events after the batch): the key is logged
    /// again first, so every later restart still sends the batch under it.
    @Test func pendingBatchKeepsItsKeyWhenTheSegmentHoldingItsRecordIsDeleted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let small: (inout DiskLogOptions) -> Void = { $0.segmentBytes = 16 << 10 }
        let key: String
        do {
            let store = try open(directory.url, configure: small)
            var index = 0
            let before = try segmentFiles(directory.url).count
            while try segmentFiles(directory.url).count == before {
                _ = store.append(event(index))
                store.commit()
                index += 1
            }
            // The new active segment holds no event; the batch's record goes there.
            let batch = try #require(store.nextBatch(maxCount: 10_000, maxBytes: .max))
            #expect(!batch.events.isEmpty && batch.events.count <= index)
            key = batch.idempotencyKey
            store.commit()
        }
        for restart in 1...3 {
            let reopened = try open(directory.url, configure: small)
            let again = try #require(reopened.nextBatch(maxCount: 10_000, maxBytes: .max))
            #expect(again.idempotencyKey == key, "restart \(restart) sent the batch under another key")
            reopened.commit()
        }
    }

    @Test func tornTailIsSkippedAndCounted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url)
            for index in 0..<3 { _ = store.append(event(index)) }
            store.sync()
        }
        let file = try #require(try segmentFiles(directory.url).last)
        let bytes = try Data(contentsOf: file)
        try bytes.dropLast(7).write(to: file)
        let reopened = try open(directory.url)
        #expect(reopened.recovery.tornBytes > 0)
        #expect(drain(reopened) == ["m-0", "m-1"])
    }

    @Test func flippedBytesSkipOnlyTheDamagedRecord() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url)
            for index in 0..<5 { _ = store.append(event(index)) }
            store.sync()
        }
        let file = try #require(try segmentFiles(directory.url).last)
        var bytes = try [UInt8](Data(contentsOf: file))
        let events = SegmentReader.read(bytes).records.filter { if case .event = $0.record { true } else { false } }
        #expect(events.count == 5)
        bytes[events[1].offset + LogRecord.headerSize + 30] ^= 0xFF
        try Data(bytes).write(to: file)
        let reopened = try open(directory.url)
        #expect(reopened.recovery.corruptRecords == 1)
        #expect(drain(reopened) == ["m-0", "m-2", "m-3", "m-4"])
    }

    @Test(arguments: [Data(), Data([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Data("MRLOG".utf8), Data(repeating: 0xFF, count: 4096)])
    func emptyTruncatedOrGarbageFilesNeverStopTheStore(_ content: Data) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try content.write(to: directory.url.appendingPathComponent("segment-0000000000000001.log"))
        do {
            let store = try open(directory.url)
            #expect(store.count == 0)
            _ = store.append(event(1))
            store.commit()
        }
        #expect(drain(try open(directory.url)) == ["m-1"])
    }

    @Test func fileFromAFutureVersionIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let future = directory.url.appendingPathComponent("segment-00000000000000ff.log")
        try Data(Array("MRLOG".utf8) + [0, 0, 9, 1, 2, 3]).write(to: future)
        let store = try open(directory.url)
        #expect(store.recovery.unsupportedFiles == 1)
        #expect(FileManager.default.fileExists(atPath: future.path))
    }

    @Test func eventsOnTheDeviceForMoreThanSevenDaysAreDroppedOnRecovery() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url)
            _ = store.append(event(1))
            clock.advance(by: 2 * 24 * 3600)
            _ = store.append(event(2))
            store.commit()
        }
        clock.advance(by: 6 * 24 * 3600)
        let reopened = try open(directory.url)
        #expect(reopened.recovery.expired == 1)
        #expect(drain(reopened) == ["m-2"])
    }

    @Test func capsDropTheOldestByCountAndBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try open(directory.url) { $0.maxEvents = 3 }
            var evicted: [String] = []
            for index in 0..<5 { evicted += store.append(event(index)).map(\.messageId) }
            #expect(evicted == ["m-0", "m-1"])
            store.commit()
        }
        #expect(drain(try open(directory.url) { $0.maxEvents = 3 }) == ["m-2", "m-3", "m-4"])

        let bytesDirectory = try TemporaryDirectory()
        defer { bytesDirectory.remove() }
        let byBytes = try open(bytesDirectory.url) { $0.maxBytes = 200 }
        for index in 0..<6 { _ = byBytes.append(event(index)) }
        #expect(byBytes.count < 6)
        #expect(drain(byBytes).last == "m-5")
    }

    @Test func deliveredSegmentsAreDeletedSoDiskTracksWhatIsUndelivered() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.segmentBytes = 2_000 }
        append(0..<200, to: store)
        store.commit()
        #expect(try segmentFiles(directory.url).count > 3)
        _ = drain(store)
        store.commit()
        _ = store.append(event(999))
        store.commit()
        #expect(try segmentFiles(directory.url).count <= 2)
        let onDisk = try segmentFiles(directory.url).reduce(0) { $0 + ((try? Data(contentsOf: $1).count) ?? 0) }
        #expect(onDisk < 4_000)
    }

    /// A finished segment is `fsync`ed with the next grouped sync, not when it is finished: one
    /// whose events were all delivered first is deleted without a sync (its pages need never
    /// reach the disk), and the rest are synced and still recovered after a restart.
    @Test func finishedSegmentsWaitForTheGroupedSyncAndDeliveredOnesSkipIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.segmentBytes = 2_000 }
        append(0..<200, to: store)
        _ = drain(store)
        store.commit()
        let afterDelivery = store.files.finishedSegments
        #expect(afterDelivery.synced == 0 && afterDelivery.discarded > 3)

        append(200..<300, to: store)
        store.requestSync()
        store.close()
        let afterSync = store.files.finishedSegments
        #expect(afterSync.synced > 2 && afterSync.discarded == afterDelivery.discarded)
        let reopened = try open(directory.url)
        #expect(drain(reopened) == (200..<300).map { "m-\($0)" })
    }

    /// The directory is listed once; a file named like a later segment that appears after
    /// that is skipped over (`O_EXCL`), never truncated or written to.
    @Test func segmentNamesThatAppearMidRunAreNeverReused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try open(directory.url) { $0.segmentBytes = 2_000 }
        let planted = (2...60).map { directory.url.appendingPathComponent(String(format: "segment-%016llx.log", $0)) }
        for file in planted { try Data("foreign".utf8).write(to: file) }
        append(0..<200, to: store)
        store.commit()
        #expect(try segmentFiles(directory.url).count > planted.count + 3)
        for file in planted { #expect(try Data(contentsOf: file) == Data("foreign".utf8)) }
        #expect(drain(store) == (0..<200).map { "m-\($0)" })
    }

    @Test func filesAreOwnerOnlyAndASecondOpenerIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logDirectory = directory.url.appendingPathComponent("events")
        let store = try open(logDirectory)
        _ = store.append(event(1))
        store.commit()
        let directoryMode = try FileManager.default.attributesOfItem(atPath: logDirectory.path)[.posixPermissions] as? NSNumber
        #expect(directoryMode?.intValue == 0o700)
        for file in try segmentFiles(logDirectory) {
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
        }
        #expect(throws: DiskStoreError.locked(logDirectory.path)) { _ = try open(logDirectory) }
        withExtendedLifetime(store) {}
    }

    @Test func resetRemovesOnlyTheStoresOwnFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let foreign = directory.url.appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: foreign)
        let store = try open(directory.url)
        for index in 0..<3 { _ = store.append(event(index)) }
        store.commit()
        #expect(store.removeAll().count == 3)
        store.commit()
        #expect(FileManager.default.fileExists(atPath: foreign.path))
        #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("lock").path))
        #expect(try segmentFiles(directory.url).count == 1)
        #expect(drain(store).isEmpty)
    }
}
