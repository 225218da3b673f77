import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit
import MetaRouterEventsGenerator

/// `metarouter plan …`: tools for tracking plans.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Work with tracking plans.", subcommands: [PlanCheckCommand.self, PlanCodegenCommand.self, PlanStatusCommand.self])
}

/// Writes the typed events of a plan, for teams that check generated code in (the
/// `MetaRouterEvents` build-tool plugin writes the same at every build).
struct PlanCodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Write MetaRouterEvents.swift: a value type per planned event and typed methods on Analytics (Docs/TypedEvents.md).")

    @Option(help: "The tracking plan: this SDK's JSON form, or a Segment Protocols export.")
    var plan: String

    @Option(help: "The directory to write MetaRouterEvents.swift into (created if missing).")
    var out: String

    func run() throws {
        do {
            print("wrote \(try PlanCodegen.write(plan: URL(fileURLWithPath: plan), to: URL(fileURLWithPath: out, isDirectory: true)).path)")
        } catch let error as GenerationError {
            throw ValidationError("\(plan): \(error.description)")
        }
    }
}

/// Which planned events the code calls, which it never calls, and which untyped names it sends
/// that the plan does not list.
struct PlanStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Read the Swift files under --sources against the plan: events called, never called, and untyped track(\"…\") names not in the plan.")

    @Option(help: "The tracking plan: this SDK's JSON form, or a Segment Protocols export.")
    var plan: String

    @Option(help: "A directory of Swift sources, read recursively (hidden directories such as .build left out).")
    var sources: String

    @Flag(help: "Exit with status 1 when a planned event is never called or an unplanned name is sent.")
    var strict = false

    func run() throws {
        let report: (lines: [String], incomplete: Bool)
        do {
            report = try PlanCodegen.status(plan: URL(fileURLWithPath: plan), sources: URL(fileURLWithPath: sources, isDirectory: true))
        } catch let error as GenerationError {
            throw ValidationError("\(plan): \(error.description)")
        }
        for line in report.lines { print(line) }
        if strict, report.incomplete { throw ExitCode(1) }
    }
}

/// Checks recorded events against a tracking plan before it ships.
struct PlanCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print one JSON line per event: whether it keeps the plan, and its violations (path, rule, message).")

    @Option(help: "The tracking plan: this SDK's JSON form, or a Segment Protocols export.")
    var plan: String

    @Option(help: "Events, one JSON object per line.")
    var events: String

    func run() throws {
        let loaded: TrackingPlan
        do {
            loaded = try TrackingPlan(json: String(contentsOfFile: plan, encoding: .utf8))
        } catch {
            throw ValidationError("\(plan): \(error)")
        }
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        for line in PlanChecker.check(plan: loaded, eventLines: lines) { print(line) }
    }
}
