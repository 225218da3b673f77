import Foundation
import MetaRouter
import MetaRouterCLIKit
import Testing

/// The two commands a team uses together, as processes over real loopback HTTP: `metarouter
/// collect` listening and writing what arrives to a JSONL file, and `metarouter send` replaying
/// a JSONL file through the SDK to it. Every readable line arrives once, in order, and the
/// unreadable ones are counted, not sent.
@Suite struct CollectAndSendTests {
    private var executable: URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let urls = candidates.compactMap { $0?.appendingPathComponent("metarouter") }
        return urls.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? urls[0]
    }

    private func start(_ arguments: [String], output: URL) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func whatSendReplaysArrivesAtCollectOnceInOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-cli-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let received = directory.appendingPathComponent("received.jsonl")
        let collectOutput = directory.appendingPathComponent("collect.txt")
        let collect = try start(["collect", "--port", "0", "--out", received.path], output: collectOutput)
        defer { if collect.isRunning { collect.terminate() } }

        // The collector prints the address it listens on once it is ready.
        var host: String?
        for _ in 0..<600 where host == nil {
            let text = (try? String(contentsOf: collectOutput, encoding: .utf8)) ?? ""
            host = text.split(separator: "\n").first { $0.hasPrefix("Listening on ") }
                .flatMap { $0.dropFirst("Listening on ".count).split(separator: " ").first }.map(String.init)
            if host == nil { try await Task.sleep(nanoseconds: 50_000_000) }
        }
        let url = try #require(host, "collect never said where it listens")

        var lines = (0..<250).map { #"{"type":"track","event":"Order Completed","userId":"user-7","properties":{"n":\#($0)}}"# }
        lines.insert("not json", at: 100)
        lines.insert(#"{"type":"bogus","event":"x"}"#, at: 200)
        let events = directory.appendingPathComponent("events.jsonl")
        try lines.joined(separator: "\n").write(to: events, atomically: true, encoding: .utf8)

        let sendOutput = directory.appendingPathComponent("send.txt")
        let send = try start(["send", events.path, "--host", url, "--write-key", "wk-cli-e2e"], output: sendOutput)
        for _ in 0..<1_200 where send.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(!send.isRunning, "send did not finish within a minute")
        #expect(send.terminationStatus == 0)
        let summary = try String(contentsOf: sendOutput, encoding: .utf8)
        #expect(summary.contains("delivered 250, dropped 0, unreadable lines 2, of 252"), "\(summary)")

        collect.terminate()
        collect.waitUntilExit()
        let arrived = try String(contentsOf: received, encoding: .utf8).split(separator: "\n").map { try JSONText.parse(String($0)) }
        #expect(arrived.compactMap { $0["properties"]?["n"]?.int64Value } == (0..<250).map(Int64.init))
        #expect(arrived.allSatisfy { $0["writeKey"] == "wk-cli-e2e" && $0["userId"] == "user-7" && $0["event"] == "Order Completed" })
        let log = try String(contentsOf: collectOutput, encoding: .utf8)
        #expect(!log.contains("  ! "), "the collector found problems in what arrived:\n\(log)")
    }
}
