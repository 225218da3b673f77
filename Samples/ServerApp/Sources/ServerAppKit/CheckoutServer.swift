import Foundation
import Hummingbird
import Logging
import MetaRouter
import MetaRouterMetrics
import MetaRouterServiceLifecycle
import NIOCore
import Prometheus
import ServiceLifecycle

/// The web service: `POST /tenants/{writeKey}/checkout` tracks `Checkout Started` for the
/// request's user (headers `X-User-Id`, `X-Anonymous-Id`) on that tenant's instance, if the
/// tenant is a customer; `GET /metrics` shows every tenant's analytics figures and the refused
/// requests (MetaRouterMetrics) to Prometheus.
public enum CheckoutServer {
    /// The Hummingbird application. `onListening` receives the bound port.
    /// With `tracking` off the handler does everything but `track` (the load test's baseline).
    public static func application(
        tenants: AnalyticsTenants, port: Int, logger: Logging.Logger, tracking: Bool = true, metrics: PrometheusCollectorRegistry? = nil,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        if let metrics {
            router.get("/metrics") { _, _ -> Response in
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; version=0.0.4"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
            }
        }
        router.post("/tenants/{tenant}/checkout") { request, context -> Response in
            let tenant = try context.parameters.require("tenant")
            let userId = request.headers[.init("X-User-Id")!]
            let anonymousId = request.headers[.init("X-Anonymous-Id")!]
            guard tracking else { return Response(status: .accepted) }
            // The tenant comes from the request: a key the service does not know is refused
            // (counted, logged once per 10 s) and the checkout goes on without its event.
            let analytics = await tenants.requestAnalytics(for: tenant, identity: RequestIdentity(userId: userId, anonymousId: anonymousId))
            analytics.track("Checkout Started", properties: ["path": request.uri.path], options: EventOptions(context: ["ip": "127.0.0.1"]))
            return Response(status: .accepted)
        }
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// Runs the application and, on SIGTERM / SIGINT, stops taking requests first and then
    /// delivers every tenant's queue before returning.
    public static func run(
        tenants: AnalyticsTenants, port: Int, logger: Logging.Logger, tracking: Bool = true,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = AnalyticsMetrics(tenants: tenants, interval: 5, factory: PrometheusMetricsFactory(registry: registry))
        let app = application(tenants: tenants, port: port, logger: logger, tracking: tracking, metrics: registry, onListening: onListening)
        let group = ServiceGroup(
            configuration: .init(
                // Analytics first: the group stops services in reverse order, so requests stop
                // before the tenants' queues are drained.
                services: [
                    .init(service: AnalyticsService(tenants: tenants, drainTimeout: 8, logger: logger)),
                    .init(service: metrics), .init(service: app),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
