#if os(Linux)
import Foundation
import MetaRouterTesting
import Testing

/// A process killed with a large backlog on disk, restarted with the host still down: opening
/// the log keeps no more resident per queued event than a process that queued them itself
/// (`Docs/Persistence.md`, "Memory": 50 bytes), once recovery's own work is done.
@Suite struct RecoveryResidencyTests {
    /// Runs the backlog child until it says its events are durable, then kills it (SIGKILL).
    private func writeBacklog(_ directory: URL, count: Int) async throws -> Bool {
        let process = Process()
        process.executableURL = CrashChildLocator.url
        process.arguments = ["backlog", directory.path, "http://127.0.0.1:9", String(count)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return try await offThePool {
            var seen = Data()
            let reader = output.fileHandleForReading
            var durable = false
            while !durable {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                seen += chunk
                durable = String(decoding: seen, as: UTF8.self).contains("durable \(count)")
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return durable
        }
    }

    /// Writes `count` events with the host down, kills the writer, and reopens the log in a
    /// process of its own; the resident bytes that opening added, and the events queued.
    private func reopen(_ count: Int) async throws -> (grown: Int, queued: Int) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #require(try await writeBacklog(directory.url, count: count))
        let child = try await runChildProcess(["recover", directory.url.path, "http://127.0.0.1:9", String(count)])
        let before = child.lines.compactMap { $0.hasPrefix("rss before ") ? Int($0.dropFirst(11)) : nil }.first ?? 0
        let after = try #require(child.lines.first { $0.hasPrefix("rss after ") }, "\(child.lines)").split(separator: " ")
        return ((Int(after[2]) ?? 0) - before, Int(after[4]) ?? 0)
    }

    /// A process opens 200 events, another 200,000: what the larger backlog
    /// adds beyond the smaller — the instance's own threads, transport and buffers being the
    /// same in both — is at most 50 bytes an event.
    @Test func reopeningABacklogAfterAKillKeepsTheResidentBoundPerEvent() async throws {
        let (small, large) = (200, 200_000)
        let base = try await reopen(small)
        let grown = try await reopen(large)
        #expect(base.queued == small && grown.queued == large, "\(base) \(grown)")
        let perEvent = Double(grown.grown - base.grown) / Double(large - small)
        print("recovery residency: \(base.grown) bytes for \(small) events, \(grown.grown) for \(large): \(perEvent) B an event")
        #expect(perEvent <= 50, "\(perEvent) B an event")
    }
}
#endif
