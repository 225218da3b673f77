import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit

/// `metarouter rules …`: tools for transform rule sets.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules", abstract: "Work with transform rule sets.", subcommands: [RulesCheckCommand.self, RulesServeCommand.self])
}

/// Runs events through a rule set and prints what comes out.
struct RulesCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print each event after the rules as one JSON line (a dropped event prints as null).")

    @Option(help: "The rule set: rule text, our JSON form, or a Segment settings payload.")
    var rules: String

    @Option(help: "Events, one JSON object per line.")
    var events: String

    @Option(help: "The rules' format: text, json or segment (detected when omitted).")
    var format: String?

    @Option(help: "Apply the rules as seen by this destination (Segment's destinationName).")
    var destination: String?

    @Flag(help: "Show which rule did what, on standard error.")
    var explain = false

    func run() throws {
        let ruleText = try String(contentsOfFile: rules, encoding: .utf8)
        let chosen = try format.map { name -> RuleFormat in
            guard let parsed = RuleFormat(rawValue: name) else { throw ValidationError("--format must be text, json or segment") }
            return parsed
        }
        let ruleSet: RuleSet
        do {
            ruleSet = try RuleSetLoader.load(ruleText, format: chosen)
        } catch {
            throw ValidationError("\(rules): \(error)")
        }
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let report: ((String) -> Void)? = explain ? { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } : nil
        for line in RulesChecker.check(ruleSet: ruleSet, eventLines: lines, destination: destination, explain: report) {
            print(line)
        }
    }
}

/// Serves a rule file over HTTP with an ETag, re-read on every request, for `remoteRules`.
struct RulesServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a rule file on 127.0.0.1 with an ETag (304 when unchanged), re-read on every request, for InitOptions.remoteRules.")

    @Option(help: "The rule file: rule text, our JSON form, or a Segment settings payload.")
    var rules: String

    @Option(help: "The port (0 picks a free one).")
    var port = 0

    func run() async throws {
        let text = try String(contentsOfFile: rules, encoding: .utf8)
        do {
            _ = try RuleSetLoader.load(text)
        } catch {
            throw ValidationError("\(rules): \(error)")
        }
        let server = RuleServer(file: rules)
        let url = try await server.start(port: port)
        print("Serving \(rules) at \(url.absoluteString) — edit the file and clients pick it up at their next refresh.")
        print("Set InitOptions.remoteRules = RemoteRulesOptions(url: URL(string: \"\(url.absoluteString)\")!). Ctrl-C stops.")
        while !Task.isCancelled { try await Task.sleep(nanoseconds: 1_000_000_000) }
    }
}
