import ArgumentParser
import Foundation
import MetaRouter
import MetaRouterCLIKit

/// `metarouter inspect`: the local collector with a live page.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Collect on 127.0.0.1 and watch every event live in the browser: problems, plan violations, what rules would do, faults on demand.")

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8788

    @Option(help: "A tracking plan (JSON) to check every event against.")
    var plan: String?

    @Option(help: "A rule set to show the effect of on every event (rule text, our JSON form, or a Segment settings payload).")
    var rules: String?

    @Option(help: "The largest body one request may send, in bytes (and inflate to, when gzip); larger ones get 413.")
    var maxRequestBytes = InspectorLimits().requestBytes

    @Option(help: "The request bytes held at once across every connection; a request past it gets 413.")
    var maxBytesInFlight = InspectorLimits().bytesInFlight

    @Option(help: "The most connections open at once; past it the one idle longest is closed.")
    var maxConnections = InspectorLimits().connections

    @Option(help: "Seconds a connection may send nothing before it is closed.")
    var idleTimeout = 10

    func run() async throws {
        let trackingPlan = try plan.map { path -> TrackingPlan in
            do {
                return try TrackingPlan(json: String(contentsOfFile: path, encoding: .utf8))
            } catch {
                throw ValidationError("\(path): \(error)")
            }
        }
        let ruleSet = try rules.map { path -> RuleSet in
            do {
                return try RuleSetLoader.load(String(contentsOfFile: path, encoding: .utf8))
            } catch {
                throw ValidationError("\(path): \(error)")
            }
        }
        let limits = InspectorLimits(
            requestBytes: maxRequestBytes, bytesInFlight: maxBytesInFlight, inflatedBytes: maxRequestBytes,
            connections: maxConnections, idleTimeout: .seconds(idleTimeout))
        let inspector = InspectorServer(plan: trackingPlan, rules: ruleSet, limits: limits)
        let url = try await inspector.start(port: port)
        FileHandle.standardOutput.write(Data("""
            Inspecting on \(url.absoluteString) — open it in a browser.
            Set InitOptions.ingestionHost to \(url.absoluteString) (an iOS simulator reaches this Mac's 127.0.0.1 as it is;
            a device or a container needs the machine's address and a tunnel). Ctrl-C stops.

            """.utf8))
        while !Task.isCancelled { try await Task.sleep(nanoseconds: 1_000_000_000) }
    }
}
