import Foundation
import Logging
import ServerAppKit

// ServerApp --ingestion-host URL [--port N] [--storage DIR] [--tenants KEY,KEY…] [--no-analytics]
// Prints "listening <port>" once it accepts requests; SIGTERM drains analytics, then exits.
// `--tenants` names the customers' write keys: only those are admitted (a request for any
// other key is refused and its event dropped), and they start with the service, so what their
// logs kept from the last run is delivered now. `--no-analytics` serves the same handler
// without `track` (the load test's baseline).

let logger = Logger(label: "server-app")
let host = URL(string: CommandLineOption.value("--ingestion-host") ?? "http://127.0.0.1:8787")!
let storage = URL(fileURLWithPath: CommandLineOption.value("--storage") ?? FileManager.default.temporaryDirectory.appendingPathComponent("server-app").path)
let known = (CommandLineOption.value("--tenants") ?? "").split(separator: ",").map(String.init)
let tenants = TenantAnalytics.make(ingestionHost: host, storageRoot: storage, logger: logger, customers: known)
let tracking = !CommandLine.arguments.contains("--no-analytics")
try await CheckoutServer.run(tenants: tenants, port: Int(CommandLineOption.value("--port") ?? "8080") ?? 8080, logger: logger, tracking: tracking) { port in
    FileHandle.standardOutput.write(Data("listening \(port)\n".utf8))
}
