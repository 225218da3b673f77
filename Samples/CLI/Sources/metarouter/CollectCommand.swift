import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit
import NIOConcurrencyHelpers

/// A local ingestion endpoint to point an app's `ingestionHost` at.
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect", abstract: "Listen on 127.0.0.1, validate and print every batch an app sends.")

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8787

    @Option(help: "Append every received event to this JSONL file.")
    var out: String?

    @Option(help: "Answer every batch with this HTTP status (e.g. 500 to watch the SDK back off).")
    var fail: Int?

    @Option(name: .customLong("retry-after"), help: "Send this Retry-After (seconds) with every answer.")
    var retryAfter: Int?

    func run() async throws {
        let output = try out.map(JSONLWriter.init(path:))
        let collector = LocalCollector(behaviour: CollectorBehaviour(status: fail ?? 200, retryAfterSeconds: retryAfter)) { batch in
            say("batch of \(batch.events.count) → \(batch.status)\(batch.idempotencyKey.map { " key=\($0)" } ?? "")")
            for problem in batch.problems { say("  ! \(problem)") }
            for event in batch.events {
                say("  " + Report.line(for: event))
                output?.append(event)
            }
        }
        let url = try await collector.start(port: port)
        say("Listening on \(url.absoluteString) — set InitOptions.ingestionHost to it. Ctrl-C stops.")
        while !Task.isCancelled { try await Task.sleep(nanoseconds: 1_000_000_000) }
    }
}

/// Writes a line to standard output at once: `print` is buffered when the output is a pipe or a
/// file, and `collect | tee` or a script reading it would see nothing until a buffer filled.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Appends JSON lines to a file.
final class JSONLWriter: Sendable {
    private let handle: NIOLockedValueBox<FileHandle>

    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        self.handle = NIOLockedValueBox(handle)
    }

    func append(_ value: JSON) {
        handle.withLockedValue { $0.write(Data(JSONText.bytes(value) + [UInt8(ascii: "\n")])) }
    }
}
