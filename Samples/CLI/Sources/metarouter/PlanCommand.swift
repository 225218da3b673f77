import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit

/// `metarouter plan …`: tools for tracking plans.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Work with tracking plans.", subcommands: [PlanCheckCommand.self])
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
