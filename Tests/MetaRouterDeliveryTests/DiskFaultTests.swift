import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// A disk that goes away for a while: the log keeps the queue in memory, logs one line for the
/// episode, retries with backoff, recreates its directory, and writes every queued event again
/// once it can; nothing accepted is lost across a restart.
@Suite struct DiskFaultTests {
    private func event(_ index: Int) -> QueuedEvent {
        QueuedEvent(
            messageId: "m-\(index)", timestamp: Date(timeIntervalSince1970: 1_800_000_000),
            payload: Array(#"{"n":\#(index),"pad":"\#(String(repeating: "x", count: 100))"}"#.utf8))
    }

    private func append(_ indices: Range<Int>, to store: DiskEventStore) {
        for index in indices {
            _ = store.append(event(index))
            if index % 10 == 9 { store.commit() }
        }
        store.commit()
    }

    private func drain(_ store: DiskEventStore) -> [Int] {
        var numbers: [Int] = []
        while let batch = store.nextBatch(maxCount: 1_000, maxBytes: .max) {
            numbers += batch.events.compactMap { Int($0.messageId.dropFirst(2)) }
            store.acknowledge(batch)
        }
        return numbers
    }

    private func reopened(_ directory: URL) throws -> [Int] {
        let store = try DiskEventStore(options: DiskLogOptions(directory: directory))
        defer { store.close() }
        #expect(store.recovery.corruptRecords == 0)
        return drain(store)
    }

    /// `rm -rf` of the log's directory while it runs, with small residency so most queued
    /// events live only on disk: the active segment is still readable through its descriptor.
    @Test func aRemovedDirectoryIsRecreatedAndRewritten() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = root.url.appendingPathComponent("events")
        let clock = ManualClock()
        let logs = RecordingLogSink()
        var options = DiskLogOptions(directory: directory)
        options.residentBytes = 4 * 1024
        let store = try DiskEventStore(options: options, clock: clock, logger: AnalyticsLogger(sink: logs))
        append(0..<200, to: store)
        try FileManager.default.removeItem(at: directory)
        append(200..<300, to: store)
        store.requestSync()
        #expect(!store.isWritable)
        append(300..<400, to: store)
        clock.advance(by: 1)
        append(400..<500, to: store)
        #expect(store.isWritable)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("lock").path))
        store.close()
        #expect(logs.messages.filter { $0.hasPrefix("sdk.event_log_error") }.count == 1)
        #expect(logs.messages.contains { $0.hasPrefix("sdk.event_log_restored") })
        #expect(try reopened(directory) == Array(0..<500))
    }

    /// While the log cannot be written every event stays in memory; once it is restored and the
    /// events are spilled again, the table that held them gives its room back too.
    @Test func theResidentTableShrinksAfterAFault() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = root.url.appendingPathComponent("events")
        let clock = ManualClock()
        var options = DiskLogOptions(directory: directory)
        options.residentBytes = 4 * 1024
        options.maxEvents = 30_000
        let store = try DiskEventStore(options: options, clock: clock, logger: AnalyticsLogger(sink: RecordingLogSink()))
        append(0..<100, to: store)
        try FileManager.default.removeItem(at: directory)
        append(100..<200, to: store)
        store.requestSync()
        #expect(!store.isWritable)
        append(200..<20_200, to: store)
        #expect(store.residents.count >= 20_000)
        clock.advance(by: 1)
        append(20_200..<20_300, to: store)
        #expect(store.isWritable)
        #expect(store.residents.count < 100)
        #expect(store.residents.capacity <= 4 * EntryIndex.blockSize, "\(store.residents.capacity) slots for \(store.residents.count)")
        #expect(drain(store) == Array(0..<20_300))
        store.close()
    }

    /// The directory replaced by a file for a while: never deleted by the log, one log line for
    /// the whole episode however many commits fail, and everything written once it is gone.
    @Test func aFileInTheDirectorysPlaceIsWaitedOut() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = root.url.appendingPathComponent("events")
        let clock = ManualClock()
        let logs = RecordingLogSink()
        let store = try DiskEventStore(options: DiskLogOptions(directory: directory), clock: clock, logger: AnalyticsLogger(sink: logs))
        append(0..<100, to: store)
        try FileManager.default.removeItem(at: directory)
        try Data("in the way".utf8).write(to: directory)
        store.requestSync()
        for round in 0..<40 {
            append((100 + round * 25)..<(125 + round * 25), to: store)
            clock.advance(by: 2)
        }
        #expect(!store.isWritable)
        #expect(store.undurableCount == 1_100)
        #expect(try String(contentsOf: directory, encoding: .utf8) == "in the way")
        try FileManager.default.removeItem(at: directory)
        clock.advance(by: 60)
        append(1_100..<1_110, to: store)
        #expect(store.isWritable)
        store.close()
        #expect(logs.messages.filter { $0.hasPrefix("sdk.event_log_error") }.count == 1)
        #expect(try reopened(directory) == Array(0..<1_110))
    }

    /// Through the client: with the host down and the log's directory gone for good,
    /// `shutdown()` says that accepted events were not persisted.
    @Test func shutdownReportsEventsItCouldNotPersist() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        var options = InitOptions(writeKey: "fault-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600)
        options.storageDirectory = root.url.appendingPathComponent("store")
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.requestTimeoutSeconds = 2
        let healthy = MetaRouter.Analytics.instance(for: options)
        for index in 0..<20 { healthy.track("Kept", properties: ["n": index]) }
        #expect(await healthy.shutdown(timeout: 10))

        let faulty = MetaRouter.Analytics.instance(for: options)
        for index in 0..<20 { faulty.track("Kept", properties: ["n": index]) }
        await faulty.flushAndWait()
        let events = root.url.appendingPathComponent("store/events")
        try FileManager.default.removeItem(at: events)
        try Data("in the way".utf8).write(to: events)
        for index in 20..<40 { faulty.track("Lost", properties: ["n": index]) }
        #expect(await faulty.shutdown(timeout: 10) == false)
    }
}
