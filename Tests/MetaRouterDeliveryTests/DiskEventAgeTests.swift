import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// The age limit measures how long a record has been on this device: not the event's own
/// timestamp, and not the wall clock when the user sets it either way.
@Suite struct DiskEventAgeTests {
    private static let day: TimeInterval = 24 * 3600
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func event(_ index: Int, timestamp: Date) -> QueuedEvent {
        QueuedEvent(messageId: "m-\(index)", timestamp: timestamp, payload: Array("{\"n\":\(index)}".utf8))
    }

    private func open(_ directory: URL, clock: ManualClock) throws -> DiskEventStore {
        try DiskEventStore(options: DiskLogOptions(directory: directory), clock: clock)
    }

    private func drain(_ store: DiskEventStore) -> [String] {
        var ids: [String] = []
        while let batch = store.nextBatch(maxCount: 1000, maxBytes: .max) {
            ids += batch.events.map(\.messageId)
            store.acknowledge(batch)
        }
        return ids
    }

    /// Writes `count` events stamped `timestamp` and closes the log.
    private func write(_ count: Int, timestamp: Date, to directory: URL, clock: ManualClock) throws {
        let store = try open(directory, clock: clock)
        for index in 0..<count { _ = store.append(event(index, timestamp: timestamp)) }
        store.close()
    }

    @Test func aBackfilledTimestampIsNotAnAge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock(start: start)
        try write(50, timestamp: start.addingTimeInterval(-8 * Self.day), to: directory.url, clock: clock)
        clock.advance(by: 5)
        let reopened = try open(directory.url, clock: clock)
        #expect(reopened.recovery.expired == 0)
        #expect(drain(reopened).count == 50)
    }

    @Test(arguments: [30.0, -30.0])
    func aWallClockJumpOnTheSameBootIsNotAnAge(days: Double) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock(start: start)
        try write(20, timestamp: clock.now(), to: directory.url, clock: clock)
        clock.moveWallClock(by: days * Self.day)
        clock.advance(by: 5)
        let reopened = try open(directory.url, clock: clock)
        #expect(reopened.recovery.expired == 0)
        #expect(drain(reopened).count == 20)
    }

    /// Tracked while the clock was 30 days behind, reopened once it was put right.
    @Test func eventsWrittenWhileTheClockWasBehindKeepTheirAge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock(start: start)
        clock.moveWallClock(by: -30 * Self.day)
        try write(20, timestamp: clock.now(), to: directory.url, clock: clock)
        clock.moveWallClock(by: 30 * Self.day)
        clock.advance(by: 5)
        let reopened = try open(directory.url, clock: clock)
        #expect(reopened.recovery.expired == 0)
        #expect(drain(reopened).count == 20)
    }

    /// The same boot: eight days of uptime expire what the wall clock says is minutes old.
    @Test func uptimeOnTheSameBootIsAnAgeWhateverTheWallClockSays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock(start: start)
        try write(3, timestamp: clock.now(), to: directory.url, clock: clock)
        clock.advance(by: 8 * Self.day)
        clock.moveWallClock(by: -8 * Self.day)
        let reopened = try open(directory.url, clock: clock)
        #expect(reopened.recovery.expired == 3)
    }

    /// After a reboot the wall clock is all there is: device time goes on from the last
    /// record by however far the wall clock moved since (as that run read it), never back.
    @Test func afterARebootTheWallClockCountsFromTheLastRecord() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = ManualClock(start: start)
        try write(2, timestamp: first.now(), to: directory.url, clock: first)
        // Rebooted with the wall clock 3 days behind: nothing gets younger or older.
        let behind = ManualClock(start: start.addingTimeInterval(-3 * Self.day))
        var store = try open(directory.url, clock: behind)
        #expect(store.recovery.expired == 0)
        _ = store.append(event(9, timestamp: behind.now()))
        store.close()
        // Rebooted 5 days later by that clock.
        let later = ManualClock(start: start.addingTimeInterval(2 * Self.day))
        store = try open(directory.url, clock: later)
        #expect(store.recovery.expired == 0)
        _ = store.append(event(10, timestamp: later.now()))
        store.close()
        // 5 more days: the first three records have been here 10 days, the last one 5.
        let muchLater = ManualClock(start: start.addingTimeInterval(7 * Self.day))
        store = try open(directory.url, clock: muchLater)
        #expect(store.recovery.expired == 3)
        #expect(drain(store) == ["m-10"])
    }

    /// A log written before device time (event records of type 1, no clock record) ages by
    /// the wall clock against the events' timestamps, as it always did.
    @Test func aLogFromBeforeDeviceTimeAgesByTheWallClock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let millis = Timestamp.epochMillis(start)
        var bytes = LogRecord.fileHeader
        for (sequence, age) in [(UInt64(1), 8 * Self.day), (2, 1 * Self.day)] {
            var record = LogRecord.event(
                sequence: sequence, timestampMillis: millis - Int64(age * 1000), storedMillis: 0, messageId: "m-\(sequence)",
                payload: Array("{}".utf8)
            ).encoded()
            // Type 1: the layout without device time.
            record[2] = 1
            record.removeSubrange(28..<36)
            let length = UInt32(record.count - 12)
            record.withUnsafeMutableBytes { $0.storeBytes(of: length.littleEndian, toByteOffset: 4, as: UInt32.self) }
            let checksum = CRC32.checksum(record[12...])
            record.withUnsafeMutableBytes { $0.storeBytes(of: checksum.littleEndian, toByteOffset: 8, as: UInt32.self) }
            bytes += record
        }
        try Data(bytes).write(to: directory.url.appendingPathComponent("segment-0000000000000001.log"))
        let store = try open(directory.url, clock: ManualClock(start: start))
        #expect(store.recovery.expired == 1)
        #expect(drain(store) == ["m-2"])
    }
}
