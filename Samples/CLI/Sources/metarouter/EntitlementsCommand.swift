import ArgumentParser
import Foundation
import MetaRouterCLIKit

/// `metarouter entitlements …`: tools for the entitlement API.
struct EntitlementsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entitlements", abstract: "Work with entitlements.", subcommands: [EntitlementsServeCommand.self])
}

/// Serves the entitlement API from a file, re-read on every request.
struct EntitlementsServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the entitlement API (Docs/Entitlements.md) on 127.0.0.1 from a file {\"users\": {\"user-42\": [\"pro\"]}}, re-read on every request.")

    @Option(help: "The file: {\"users\": {userId: [entitlement keys]}}.")
    var file: String

    @Option(help: "The port (0 picks a free one).")
    var port = 0

    func run() async throws {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), EntitlementServer.users(in: text) != nil else {
            throw ValidationError("\(file): not {\"users\": {userId: [strings]}}")
        }
        let server = EntitlementServer(file: file)
        let url = try await server.start(port: port)
        print("Serving the entitlements of \(file) at \(url.absoluteString) — edit the file and clients see it at their next refresh.")
        print("Set ingestionHost = \"\(url.absoluteString)\" and InitOptions.entitlements = EntitlementOptions(). A purchase with evidence \"grant:<key>\" grants <key>. Ctrl-C stops.")
        while !Task.isCancelled { try await Task.sleep(nanoseconds: 1_000_000_000) }
    }
}
