import Foundation
import MetaRouter
import MetaRouterLogging
import MetaRouterServiceLifecycle
import MetaRouterVapor
import Vapor

// swift run --package-path Samples/ServerApp VaporApp serve [--hostname 127.0.0.1] [--port 8080]
// (INGESTION_HOST, default http://127.0.0.1:8787; TENANTS, the customers' write keys, comma-separated)
// POST /tenants/{writeKey}/checkout tracks "Checkout Started" for the X-User-Id / X-Anonymous-Id
// of the request on that tenant's instance. SIGTERM: Vapor stops, then every tenant drains.

let environment = try Environment.detect()
let app = try await Application.make(environment)
let host = Environment.get("INGESTION_HOST") ?? "http://127.0.0.1:8787"
let storage = FileManager.default.temporaryDirectory.appendingPathComponent("vapor-app")
let logger = app.logger
// Only the customers' write keys (TENANTS, comma-separated) are admitted: a request naming any
// other key is refused, counted and its event dropped; nothing is made for it.
let customers = (Environment.get("TENANTS") ?? "").split(separator: ",").map(String.init)
let tenants = AnalyticsTenants(policy: .allowList(customers), known: customers, logger: logger) { writeKey in
    var options = InitOptions(writeKey: writeKey, ingestionHost: host)
    options.storageDirectory = storage.appendingPathComponent(InitOptions.storageName(for: writeKey))
    options.identityMode = .perCall
    options.log(to: logger)
    return options
}
app.lifecycle.use(VaporAnalyticsLifecycle(tenants: tenants))
// On the routes (not globally), so the route's `tenant` parameter is known when it runs.
let tracked = app.grouped(VaporAnalyticsMiddleware(tenants: tenants) { request in
    request.parameters.get("tenant") ?? "unknown"
} identity: { request in
    RequestIdentity(userId: request.headers.first(name: "X-User-Id"), anonymousId: request.headers.first(name: "X-Anonymous-Id"))
})
tracked.post("tenants", ":tenant", "checkout") { request -> HTTPStatus in
    request.analytics?.track("Checkout Started", properties: ["path": request.url.path])
    return .accepted
}
try await app.execute()
try await app.asyncShutdown()
