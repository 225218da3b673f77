#if os(Linux)
import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// A disk that fills up mid-write: a child process writes the event log under a file-size
/// limit (the write that crosses it is cut short and the next one fails, as on a full disk),
/// keeps queueing while its commits fail, then gets room back. The part of a record that
/// reached the file before the failure is cut off, so the records written later land where the
/// log expects them: reopened, the log holds every event, in order, with nothing torn or
/// corrupt. (A process-wide limit, hence the child: it would fail every other test's writes.)
@Suite struct FullDiskTests {
    @Test func aWriteCutShortByAFullDiskLeavesNoTornRecordBehind() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = Process()
        process.executableURL = CrashChildLocator.url
        process.arguments = ["filelimit", directory.url.path, "http://127.0.0.1:9", "40000"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        let lines = try await offThePool { () -> [String] in
            let data = reader.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        func value(_ name: String) -> Int? {
            lines.first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        let appended = try #require(value("appended"), "the child said: \(lines)")
        #expect(value("failed") == 3, "the limit never made a commit fail: \(lines)")
        // While the limit held, the file ended at the last whole commit, below the limit.
        #expect((value("size") ?? .max) < 40_000)

        let store = try DiskEventStore(options: DiskLogOptions(directory: directory.url))
        #expect(store.recovery.corruptRecords == 0 && store.recovery.tornBytes == 0, "\(store.recovery)")
        #expect(store.recovery.recovered == appended)
        var numbers: [Int] = []
        while let batch = store.nextBatch(maxCount: 1_000, maxBytes: .max) {
            numbers += batch.events.compactMap { Int($0.messageId.dropFirst(2)) }
            store.acknowledge(batch)
        }
        #expect(numbers == Array(0..<appended))
        store.close()
    }
}
#endif
