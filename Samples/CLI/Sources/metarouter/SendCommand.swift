import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit

/// Replays events from a JSONL file through the pipeline (backfills, server-side imports).
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Replay events from a JSONL file through the SDK to an ingestion host.")

    @Argument(help: "A file with one event per line (wire format; messageId and timestamp are filled in when missing).")
    var file: String

    @Option(help: "The ingestion host.")
    var host: String

    @Option(name: .customLong("write-key"), help: "The write key.")
    var writeKey: String

    @Option(help: "Seconds to keep retrying what the host did not take before shutting down.")
    var wait: Double = 30

    func run() async throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        var options = InitOptions(writeKey: writeKey, ingestionHost: host)
        options.defaultPlugins = [.context, .delivery]
        options.keyValueStore = NothingStored()
        options.logSink = PrefixedLogSink()
        let analytics = MetaRouter.Analytics.instance(for: options)
        if let error = await analytics.getDebugInfo().error { throw ValidationError(error) }
        var unreadable = 0
        for (index, line) in lines.enumerated() {
            if let event = EventLine.event(from: String(line)) { analytics.process(event) } else { unreadable += 1 }
            if index % 100 == 0 || index == lines.count - 1 { ProgressBar.draw(done: index + 1, total: lines.count) }
        }
        // Through transient failures (a 5xx, a 429, a dropped connection) the SDK retries with
        // backoff: wait up to `--wait` seconds for the queue to empty before shutting down; what
        // is left stays in the disk log for the next run.
        let deadline = Date().addingTimeInterval(wait)
        await analytics.flushAndWait()
        while await analytics.getDebugInfo().queueLength > 0, Date() < deadline {
            try await Task.sleep(nanoseconds: 200_000_000)
            await analytics.flushAndWait()
        }
        await analytics.shutdown()
        let stats = await analytics.getDebugInfo().stats
        FileHandle.standardError.write(Data("\n".utf8))
        let dropped = stats.dropped.values.reduce(0, +)
        print("delivered \(stats.sent), dropped \(dropped), unreadable lines \(unreadable), of \(lines.count)")
        if stats.sent + dropped + unreadable < lines.count { print("\(lines.count - stats.sent - dropped - unreadable) not delivered before shutdown") }
    }
}

/// A one-line progress bar on standard error.
enum ProgressBar {
    static func draw(done: Int, total: Int) {
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
    }
}

/// Identity is off for `send` (each line carries its own ids), so nothing is kept between runs.
private struct NothingStored: KeyValueStore {
    func string(forKey key: String) -> String? { nil }
    func set(_ value: String?, forKey key: String) {}
}
