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
        let planURL = URL(fileURLWithPath: plan)
        let text = try String(contentsOf: planURL, encoding: .utf8)
        let code: String
        do { code = try EventsGenerator.generate(plan: text, planName: planURL.lastPathComponent) } catch { throw ValidationError("\(plan): \(error.description)") }
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("MetaRouterEvents.swift")
        try code.write(to: file, atomically: true, encoding: .utf8)
        print("wrote \(file.path)")
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
        let text = try String(contentsOf: URL(fileURLWithPath: plan), encoding: .utf8)
        var files: [String] = []
        let walk = FileManager.default.enumerator(at: URL(fileURLWithPath: sources, isDirectory: true), includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let url = walk?.nextObject() as? URL {
            guard url.pathExtension == "swift", url.lastPathComponent != "MetaRouterEvents.swift" else { continue }
            if let source = try? String(contentsOf: url, encoding: .utf8) { files.append(source) }
        }
        let usage: PlanUsage
        do { usage = try PlanUsage(plan: text, sources: files) } catch { throw ValidationError("\(plan): \(error.description)") }
        print("\(files.count) Swift files read")
        for (title, names) in [("called", usage.called), ("never called", usage.neverCalled), ("not in the plan", usage.unplanned)] {
            print("\(title) (\(names.count)):")
            for name in names { print("  \(name)") }
        }
        if strict, !usage.neverCalled.isEmpty || !usage.unplanned.isEmpty { throw ExitCode(1) }
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
