import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Kills a child process with SIGKILL at random moments while it tracks against a collector
/// that is failing, restarts it with the collector up, and checks that every event the child
/// had tracked more than one drain cycle before the kill arrives — duplicates only with the
/// same messageId.
@Suite struct CrashTests {
    private static var childURL: URL { CrashChildLocator.url }

    /// Runs the child; returns its stdout lines once it exits (or once `killAfter` passes and
    /// it has been killed).
    private func runChild(_ arguments: [String], killAfter: TimeInterval? = nil) throws -> [String] {
        let process = Process()
        process.executableURL = Self.childURL
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let killAfter {
            Thread.sleep(forTimeInterval: killAfter)
            kill(process.processIdentifier, SIGKILL)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func everyDurableEventSurvivesSIGKILL() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.childURL.path), "build MetaRouterCrashChild first")
        let collector = try Collector()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var expected: [Int] = []
        var random = SystemRandomNumberGenerator()
        for round in 0..<10 {
            // Each round numbers its events from round × 1,000,000, so rounds never overlap.
            let first = round * 1_000_000
            try await collector.script(fallback: ScriptedResponse(status: 503))
            let lines = try runChild(
                ["track", directory.url.path, collector.baseURL.absoluteString, String(first)],
                killAfter: Double.random(in: 0.15...0.6, using: &random))
            if let durable = lines.compactMap({ $0.hasPrefix("durable ") ? Int($0.dropFirst(8)) : nil }).max() {
                expected += Array(first...durable)
            }

            try await collector.script(fallback: ScriptedResponse(status: 200))
            let drained = try runChild(["drain", directory.url.path, collector.baseURL.absoluteString])
            #expect(drained.last?.hasPrefix("drained") == true, "round \(round): \(drained)")
        }
        let accepted = try await collector.acceptedEvents()
        var messageIds: [Int: Set<String>] = [:]
        for event in accepted {
            guard let number = event.number, let id = event["messageId"]?.stringValue else { continue }
            messageIds[number, default: []].insert(id)
        }
        #expect(expected.count > 100, "the child reported too few durable events to test anything")
        let missing = expected.filter { messageIds[$0] == nil }
        #expect(missing.count == 0, "\(missing.count) durable events never arrived, e.g. \(missing.prefix(5))")
        #expect(messageIds.values.allSatisfy { $0.count == 1 }, "a duplicate arrived with a different messageId")
    }
}

/// Finds the `MetaRouterCrashChild` executable, which sits beside the test bundle in the build
/// products directory.
enum CrashChildLocator {
    static var url: URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let urls = candidates.compactMap { $0?.appendingPathComponent("MetaRouterCrashChild") }
        return urls.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? urls[0]
    }
}
