import Instrumentation
import MetaRouter
import MetaRouterServiceLifecycle
import MetaRouterTracing
import Synchronization
import Vapor

/// Vapor middleware that gives every route behind it `request.analytics`: the tenant's
/// instance (from an `AnalyticsTenants`) bound to the request's identity, which the app resolves
/// with its own closures. Given an `instrument`, each event carries the request's trace context
/// (`context.trace`). No I/O and no waiting for delivery; a tenant the tenants' policy refuses
/// gives a `request.analytics` that drops its calls, and the responder runs as usual.
public struct VaporAnalyticsMiddleware: AsyncMiddleware {
    private let tenants: AnalyticsTenants
    private let tenant: @Sendable (Request) -> String
    private let identity: @Sendable (Request) -> RequestIdentity
    private let instrument: (any Instrument)?

    /// Middleware choosing the tenant's write key with `tenant` and the request's identity with
    /// `identity`; events carry the trace context `instrument` propagates, when one is given.
    public init(
        tenants: AnalyticsTenants, instrument: (any Instrument)? = nil, tenant: @escaping @Sendable (Request) -> String,
        identity: @escaping @Sendable (Request) -> RequestIdentity
    ) {
        self.tenants = tenants
        self.tenant = tenant
        self.identity = identity
        self.instrument = instrument
    }

    /// Binds `request.analytics`, then passes the request on.
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let decorate: @Sendable (EventOptions) -> EventOptions
        if let instrument {
            decorate = { $0.withTraceContext(instrument: instrument) }
        } else {
            decorate = { $0 }
        }
        request.storage[BoundAnalyticsKey.self] = await tenants.requestAnalytics(
            for: tenant(request), identity: identity(request), decorate: decorate)
        return try await next.respond(to: request)
    }
}

/// Starts the tenants with the application, shuts idle ones down while it runs, and drains
/// every tenant when it shuts down (Vapor handles SIGTERM and SIGINT): add it to
/// `app.lifecycle`.
public final class VaporAnalyticsLifecycle: LifecycleHandler {
    /// The tenants it owns.
    public let tenants: AnalyticsTenants
    /// Seconds the drain may take (8 by default).
    public let drainTimeout: TimeInterval

    /// A handler for `tenants`, draining within `drainTimeout` seconds.
    public init(tenants: AnalyticsTenants, drainTimeout: TimeInterval = 8) {
        self.tenants = tenants
        self.drainTimeout = drainTimeout
    }

    /// Starts the tenants and the idle sweep.
    public func didBootAsync(_ application: Application) async throws {
        await tenants.start()
        let tenants = self.tenants
        sweeper.withLock { $0 = Task { await tenants.evictIdleUntilCancelled() } }
    }

    /// Stops the sweep and delivers or persists every tenant's queue.
    public func shutdownAsync(_ application: Application) async {
        sweeper.withLock { $0?.cancel() }
        await tenants.drain(timeout: drainTimeout)
    }

    private let sweeper = Mutex<Task<Void, Never>?>(nil)
}

struct BoundAnalyticsKey: StorageKey {
    typealias Value = RequestAnalytics
}

extension Request {
    /// The tenant's analytics bound to this request's identity, behind
    /// ``VaporAnalyticsMiddleware``; `nil` elsewhere.
    public var analytics: RequestAnalytics? { storage[BoundAnalyticsKey.self] }
}
