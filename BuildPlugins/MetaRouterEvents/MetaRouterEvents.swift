import Foundation
import PackagePlugin

/// Generates typed events from the `tracking-plan.json` among a target's files at every build:
/// one value type per planned event and typed methods on `Analytics` (Docs/TypedEvents.md).
/// A target without a plan gets nothing; a plan that cannot become Swift fails the build with
/// one message naming the plan entry. The code comes in ``shards`` + 1 files (the namespace
/// first), each with an equal, contiguous share of the events, so the compiler's jobs take them
/// apart.
@main
struct MetaRouterEvents: BuildToolPlugin {
    /// Files the events are spread over: enough for the compiler's parallel jobs and to keep
    /// each file small at thousands of events; a plan with fewer events leaves some empty.
    static let shards = 8

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let plans = target.sourceFiles.filter { $0.url.lastPathComponent == "tracking-plan.json" }
        guard plans.count <= 1 else {
            throw PluginError("target \(target.name) has \(plans.count) files named tracking-plan.json; keep one")
        }
        guard let plan = plans.first else { return [] }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("MetaRouterEvents.swift")
        let shardFiles = (0..<Self.shards).map { context.pluginWorkDirectoryURL.appendingPathComponent("MetaRouterEvents-\($0).swift") }
        return [
            .buildCommand(
                displayName: "Generating typed events from \(plan.url.lastPathComponent)",
                executable: try context.tool(named: "metarouter-events-gen").url,
                arguments: [plan.url.path, output.path, "--shards", "\(Self.shards)"],
                inputFiles: [plan.url],
                outputFiles: [output] + shardFiles)
        ]
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
