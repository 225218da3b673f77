import Foundation
import MetaRouter
import MetaRouterServiceLifecycle
import MetaRouterVapor
import Testing
import Vapor

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Vapor application on 127.0.0.1 with the middleware and the lifecycle handler: each
/// request's event for its own user and tenant, trace ids on it, and the drain when the
/// application shuts down.
@Suite struct VaporTests {
    @Test func requestsAreTrackedForTheirUserAndShutdownDrains() async throws {
        let ingestion = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let tenants = AnalyticsTenants(policy: .allowList(["vapor-tenant-0001", "vapor-tenant-0002"]), known: ["vapor-tenant-0001"]) { writeKey in
            var options = InitOptions(writeKey: writeKey, ingestionHost: ingestion.baseURL.absoluteString)
            options.storageDirectory = directory.url.appendingPathComponent(InitOptions.storageName(for: writeKey))
            options.identityMode = .perCall
            return options
        }
        var environment = Environment.testing
        environment.arguments = ["vapor"]
        let app = try await Application.make(environment)
        app.logger.logLevel = .error
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        app.lifecycle.use(VaporAnalyticsLifecycle(tenants: tenants))
        app.middleware.use(VaporAnalyticsMiddleware(tenants: tenants, instrument: FixedTraceInstrument()) { request in
            request.headers.first(name: "X-Tenant") ?? "unknown"
        } identity: { request in
            RequestIdentity(userId: request.headers.first(name: "X-User-Id"), anonymousId: request.headers.first(name: "X-Anonymous-Id"))
        })
        app.post("checkout") { request -> HTTPStatus in
            request.analytics?.track("Checkout Started", properties: ["path": request.url.path])
            return .accepted
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        try await app.asyncBoot()
        let port = try #require(app.http.server.shared.localAddress?.port)
        for index in 0..<10 {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/checkout")!)
            request.httpMethod = "POST"
            request.setValue(index.isMultiple(of: 2) ? "vapor-tenant-0001" : "vapor-tenant-0002", forHTTPHeaderField: "X-Tenant")
            request.setValue("user-\(index)", forHTTPHeaderField: "X-User-Id")
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 202)
        }
        // A tenant the allow-list does not name: the route still answers, its event is dropped.
        var stranger = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/checkout")!)
        stranger.httpMethod = "POST"
        stranger.setValue("not-a-customer", forHTTPHeaderField: "X-Tenant")
        stranger.setValue("user-x", forHTTPHeaderField: "X-User-Id")
        let (_, answer) = try await URLSession.shared.data(for: stranger)
        #expect((answer as? HTTPURLResponse)?.statusCode == 202)
        #expect(tenants.refusalCounts[.unknownKey] == 1 && tenants.droppedEvents == 1)
        await app.server.shutdown()
        try await app.asyncShutdown()

        let events = ingestion.events
        #expect(events.count == 10)
        #expect(Set(events.compactMap { $0["userId"]?.stringValue }) == Set((0..<10).map { "user-\($0)" }))
        #expect(events.allSatisfy { $0["context"]?["trace"]?["traceId"]?.stringValue == FixedTraceInstrument.traceId })
        #expect(Set(events.compactMap { $0["writeKey"]?.stringValue }) == ["vapor-tenant-0001", "vapor-tenant-0002"])
        await ingestion.stop()
    }
}
