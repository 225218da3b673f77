import Foundation
import Hummingbird
import Logging
import MetaRouter
import NIOCore
import ServiceLifecycle

/// The web service: `POST /tenants/{writeKey}/checkout` tracks `Checkout Started` for the
/// request's user (headers `X-User-Id`, `X-Anonymous-Id`) on that tenant's instance.
public enum CheckoutServer {
    /// The Hummingbird application. `onListening` receives the bound port.
    /// With `tracking` off the handler does everything but `track` (the load test's baseline).
    public static func application(
        tenants: TenantAnalytics, port: Int, logger: Logging.Logger, tracking: Bool = true,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        router.post("/tenants/{tenant}/checkout") { request, context -> Response in
            let tenant = try context.parameters.require("tenant")
            let userId = request.headers[.init("X-User-Id")!]
            let anonymousId = request.headers[.init("X-Anonymous-Id")!]
            guard tracking else { return Response(status: .accepted) }
            tenants.instance(for: tenant).track(
                "Checkout Started", properties: ["path": request.uri.path],
                options: EventOptions(userId: userId, anonymousId: anonymousId, context: ["ip": "127.0.0.1"]))
            return Response(status: .accepted)
        }
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// Runs the application and, on SIGTERM / SIGINT, stops taking requests first and then
    /// delivers every tenant's queue before returning.
    public static func run(
        tenants: TenantAnalytics, port: Int, logger: Logging.Logger, tracking: Bool = true,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        let app = application(tenants: tenants, port: port, logger: logger, tracking: tracking, onListening: onListening)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: AnalyticsDrain()), .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// Waits for graceful shutdown, then delivers (or persists) every instance's queue.
struct AnalyticsDrain: Service {
    func run() async throws {
        try? await gracefulShutdown()
        // Within Kubernetes' 30 s grace period, with room to spare; what is not delivered by
        // then stays in the tenants' logs and goes out at the next start.
        await MetaRouter.Analytics.shutdownAll(timeout: 8)
    }
}
