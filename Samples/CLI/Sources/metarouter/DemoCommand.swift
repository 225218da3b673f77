import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit

/// Runs a scripted session through the SDK against an embedded collector and prints what it
/// received.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Run a scripted session against an embedded local collector and show what arrived.")

    @Flag(help: "Print the received events as JSON lines instead of pretty JSON.")
    var json = false

    @Flag(help: "Exit with an error unless every scripted event arrived, valid and in order.")
    var check = false

    @Option(help: "Send the session to this ingestion host (a running `metarouter inspect`, say) instead of an embedded collector.")
    var to: String?

    func run() async throws {
        if let to {
            guard let host = URL(string: to), host.scheme == "http" || host.scheme == "https" else { throw ValidationError("--to must be an http(s) URL") }
            return try await send(to: host)
        }
        let collector = LocalCollector()
        let host = try await collector.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logs = PrefixedLogSink()
        print("Local collector listening on \(host.absoluteString)")
        print("Running the demo session: lifecycle events, identify, group, screen, tracks, page, alias,")
        print("an app-section enrichment plugin and this transform rule set:\n")
        print(DemoSession.rules.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n")
        print("and a remote rule set from its own rule server, changed mid-session without a restart:\n")
        print(DemoSession.remoteRules(version: 1).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        print("    … version 2 (rules_version = 2) from call \(DemoSession.afterRuleChange + 1) on\n")
        await DemoSession.run(host: host, directory: directory, logSink: logs)
        await collector.stop()
        let batches = collector.received
        print(Report.table(for: batches))
        print()
        let events = batches.flatMap(\.events)
        for event in events { print(json ? event.description : Report.pretty(event)) }
        print()
        for event in events { print(Report.line(for: event)) }
        let problems = batches.flatMap(\.problems)
        let complete = DemoSession.matches(collector.acceptedEvents)
        print("\n\(events.count) events in \(batches.count) batch(es); \(problems.isEmpty ? "all valid" : "\(problems.count) problem(s)"); \(complete ? "every scripted call arrived in order" : "the session is incomplete")")
        if check && (!complete || !problems.isEmpty) { throw ExitCode.failure }
    }

    /// The session, delivered to `host`; what arrived is shown there.
    private func send(to host: URL) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("Running the demo session against \(host.absoluteString) …")
        await DemoSession.run(host: host, directory: directory, logSink: PrefixedLogSink())
        print("Sent \(DemoSession.expected.count) events; see them at \(host.absoluteString).")
    }
}

/// Writes the SDK's log lines to standard error with a prefix, so they stand apart from the
/// report on standard output.
struct PrefixedLogSink: LogSink {
    func log(level: LogLevel, message: String) {
        FileHandle.standardError.write(Data("  sdk \(level): \(message)\n".utf8))
    }
}
