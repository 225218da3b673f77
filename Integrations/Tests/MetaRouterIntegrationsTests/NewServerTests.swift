import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Instrumentation
import Logging
import MetaRouter
import MetaRouterHummingbird
import MetaRouterLogging
import MetaRouterMetrics
import MetaRouterServiceLifecycle
import MetaRouterTracing
import MetricsTestKit
import ServiceContextModule
import ServiceLifecycle
import Testing

/// What a new server project writes to adopt the integrations — per-tenant analytics with the
/// request's identity, logs in swift-log, metrics, trace ids on events and a drain at graceful
/// shutdown — and that each of those works, over real HTTP on 127.0.0.1.
@Suite struct NewServerTests {
    @Test func aServerInUnderTwentyLines() async throws {
        let ingestion = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        let logs = LoggingTests.Capture()
        let logger = logs.logger(level: .info)
        let metrics = TestMetrics()
        let tracer = FixedTraceInstrument()
        let ports = AsyncStream<Int>.makeStream()

        // ---- the app's setup: 20 lines ----
        let customers: Set<String> = ["tenant-a-key-0001", "tenant-b-key-0002"]  // the app's own records
        let tenants = AnalyticsTenants(policy: .resolver { customers.contains($0) }, known: ["tenant-a-key-0001"], logger: logger) { writeKey in
            var options = InitOptions(writeKey: writeKey, ingestionHost: ingestion.baseURL.absoluteString)
            options.storageDirectory = directory.url.appendingPathComponent(InitOptions.storageName(for: writeKey))
            options.identityMode = .perCall
            options.log(to: logger)
            return options
        }
        let router = Router(context: BasicAnalyticsRequestContext.self)
        router.add(middleware: AnalyticsMiddleware(tenants: tenants, instrument: tracer) { request, _ in
            request.headers[.init("X-Tenant")!] ?? "unknown"
        } identity: { request, _ in
            RequestIdentity(userId: request.headers[.init("X-User-Id")!], anonymousId: request.headers[.init("X-Anonymous-Id")!])
        })
        router.post("/checkout") { request, context -> HTTPResponse.Status in
            context.analytics?.track("Checkout Started", properties: ["path": request.uri.path])
            return .accepted
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) })
        // Stopped in reverse order: the server first, then the drain, then a last metrics reading.
        let services: [any Service] = [AnalyticsMetrics(tenants: tenants, factory: metrics), AnalyticsService(tenants: tenants), app]
        // ---- end of the setup ----

        let group = ServiceGroup(services: services, logger: logger)
        let running = Task { try await group.run() }
        var iterator = ports.stream.makeAsyncIterator()
        let port = try #require(await iterator.next())
        for index in 0..<20 {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/checkout")!)
            request.httpMethod = "POST"
            request.setValue(index.isMultiple(of: 2) ? "tenant-a-key-0001" : "tenant-b-key-0002", forHTTPHeaderField: "X-Tenant")
            request.setValue("user-\(index)", forHTTPHeaderField: "X-User-Id")
            request.setValue("visitor-\(index)", forHTTPHeaderField: "X-Anonymous-Id")
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 202)
        }
        // A request with no identity: the SDK rejects its event with a warning, which swift-log gets.
        var anonymous = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/checkout")!)
        anonymous.httpMethod = "POST"
        anonymous.setValue("tenant-a-key-0001", forHTTPHeaderField: "X-Tenant")
        _ = try await URLSession.shared.data(for: anonymous)
        await group.triggerGracefulShutdown()  // what SIGTERM does in a ServiceGroup
        try await running.value

        // Every request's event arrived, for its own user, with the trace ids of its request.
        #expect(ingestion.accepted.count == 20)
        let events = ingestion.events
        #expect(Set(events.compactMap { $0["userId"]?.stringValue }) == Set((0..<20).map { "user-\($0)" }))
        for event in events {
            let trace = event["context"]?["trace"]
            #expect(trace?["traceId"]?.stringValue == FixedTraceInstrument.traceId && trace?["spanId"]?.stringValue == FixedTraceInstrument.spanId)
            #expect(event["anonymousId"]?.stringValue == "visitor-" + (event["userId"]?.stringValue ?? "").dropFirst(5))
        }
        // Logs went to swift-log; metrics counted both tenants' deliveries and the rejection.
        #expect(logs.records.withLock { $0.contains { $0.metadata["tenant"] == "*************0001" && $0.metadata["sdk"] != nil } })
        let rejected = try metrics.expectCounter("metarouter_events_dropped_total", [("tenant", "*************0001"), ("reason", "noIdentity")])
        #expect(rejected.totalValue == 1)
        let delivered = try metrics.expectCounter("metarouter_events_delivered_total", [("tenant", "*************0002")])
        #expect(delivered.totalValue == 10)
        await ingestion.stop()
    }
}

/// A tracer's propagation, reduced to one fixed W3C `traceparent`.
struct FixedTraceInstrument: Instrument {
    static let traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let spanId = "00f067aa0ba902b7"

    func extract<Carrier, Extract>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract: Extractor, Extract.Carrier == Carrier {}

    func inject<Carrier, Inject>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject: Injector, Inject.Carrier == Carrier {
        injector.inject("00-\(Self.traceId)-\(Self.spanId)-01", forKey: "traceparent", into: &carrier)
    }
}
