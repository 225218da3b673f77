import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

#if canImport(Glibc)
import Glibc
#endif

/// The events directory is untrusted: whatever names, sizes, modes and file types it holds,
/// the log starts, keeps every good record, reports the rest, and touches nothing it did not
/// write.
@Suite struct HostileEventDirectoryTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func event(_ index: Int) -> QueuedEvent {
        QueuedEvent(messageId: "m-\(index)", timestamp: now, payload: Array("{\"n\":\(index)}".utf8))
    }

    private func open(_ directory: URL) throws -> DiskEventStore {
        try DiskEventStore(options: DiskLogOptions(directory: directory))
    }

    private func drain(_ store: DiskEventStore) -> [String] {
        var ids: [String] = []
        while let batch = store.nextBatch(maxCount: 1000, maxBytes: .max) {
            ids += batch.events.map(\.messageId)
            store.acknowledge(batch)
        }
        return ids
    }

    private func write(_ records: [LogRecord], to url: URL) throws {
        try Data(LogRecord.fileHeader + records.flatMap { $0.encoded() }).write(to: url)
    }

    @Test func startsKeepsGoodRecordsAndReportsTheRest() throws {
        let directory = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        defer {
            directory.remove()
            outside.remove()
        }
        let events = directory.url
        do {
            let store = try open(events)
            for index in 0..<5 { _ = store.append(event(index)) }
            store.sync()
        }
        let bystander = outside.url.appendingPathComponent("bystander.txt")
        try Data("keep me".utf8).write(to: bystander)
        func path(_ name: String) -> String { events.appendingPathComponent(name).path }

        // A name whose id would overflow, and one that is merely too large to be ours.
        try write([.event(sequence: 1_000, timestampMillis: 0, storedMillis: 0, messageId: "x", payload: [])], to: URL(fileURLWithPath: path("segment-ffffffffffffffff.log")))
        #expect(FileManager.default.createFile(atPath: path("segment-0001000000000000.log"), contents: Data()))
        // Hostile numbers inside well-formed records.
        try write([
            .event(sequence: UInt64.max, timestampMillis: Int64.max, storedMillis: Int64.max, messageId: "huge", payload: [1]),
            .removed([0...(UInt64.max - 1)]),
            .batch(key: "k", ranges: [0...(1 << 47)]),
        ], to: URL(fileURLWithPath: path("segment-00000000000000f0.log")))
        // Things that are not regular files, or are too large, or unreadable.
        try FileManager.default.createDirectory(atPath: path("segment-00000000000000f1.log") + "/inner", withIntermediateDirectories: true)
        #expect(mkfifo(path("segment-00000000000000f2.log"), 0o600) == 0)
        #expect(symlink("/dev/zero", path("segment-00000000000000f3.log")) == 0)
        #expect(symlink(bystander.path, path("segment-00000000000000f4.log")) == 0)
        let huge = Glibc.open(path("segment-00000000000000f5.log"), O_CREAT | O_WRONLY, 0o600)
        #expect(ftruncate(huge, 1 << 40) == 0)
        close(huge)
        #expect(FileManager.default.createFile(atPath: path("segment-00000000000000f6.log"), contents: Data(LogRecord.fileHeader), attributes: [.posixPermissions: 0]))
        #expect(FileManager.default.createFile(atPath: path("segment-short.log"), contents: Data([1, 2, 3])))
        #expect(FileManager.default.createFile(atPath: path("segment-00000000000000f7.log"), contents: Data(repeating: 0x4D, count: 10_000)))

        let store = try open(events)
        let report = store.recovery
        #expect(drain(store) == (0..<5).map { "m-\($0)" })
        #expect(report.recovered == 5)
        #expect(report.ignoredFiles == 3)
        // The directory, FIFO, /dev/zero link, bystander link and sparse file; a mode-000 file
        // is unreadable unless the tests run as root.
        #expect(report.unreadableFiles == (geteuid() == 0 ? 5 : 6))
        #expect(report.corruptRecords >= 2)
        #expect(report.problems.contains { $0.contains("segment-00000000000000f2.log is not a regular file") })
        #expect(report.problems.contains { $0.contains("segment-ffffffffffffffff.log") })
        // Nothing outside what the log wrote was removed.
        #expect(FileManager.default.fileExists(atPath: bystander.path))
        #expect(FileManager.default.fileExists(atPath: path("segment-00000000000000f1.log") + "/inner"))
        #expect(FileManager.default.fileExists(atPath: path("segment-ffffffffffffffff.log")))
        // New events still go in and survive a reopen.
        _ = store.append(event(99))
        store.sync()
        for name in ["segment-00000000000000f3.log", "segment-00000000000000f4.log"] { unlink(path(name)) }
    }

    @Test func aStoragePathThatIsAFileGetsAClearError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("events")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8)))
        #expect {
            _ = try open(file)
        } throws: { error in
            "\(error)".contains("is a file, not a directory") && !"\(error)".contains("NSCocoaErrorDomain")
        }
    }
}
