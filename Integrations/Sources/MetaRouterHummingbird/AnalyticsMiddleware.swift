import Hummingbird
import Instrumentation
import MetaRouter
import MetaRouterServiceLifecycle
import MetaRouterTracing

/// Hummingbird middleware that gives every handler behind it `request.analytics`: the
/// tenant's instance (from an `AnalyticsTenants`) bound to the request's identity, which the
/// app resolves with its own closures. Given an `instrument` (`InstrumentationSystem.instrument`
/// once a tracer is bootstrapped), each event carries the request's trace context
/// (`context.trace`). It does no I/O and never waits for delivery; a tenant the tenants' policy
/// refuses gives a `request.analytics` that drops its calls, and the handler runs as usual.
public struct AnalyticsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let tenants: AnalyticsTenants
    private let tenant: @Sendable (Request, Context) -> String
    private let identity: @Sendable (Request, Context) -> RequestIdentity
    private let instrument: (any Instrument)?

    /// Middleware choosing the tenant's write key with `tenant` and the request's identity with
    /// `identity`; events carry the trace context `instrument` propagates, when one is given.
    public init(
        tenants: AnalyticsTenants, instrument: (any Instrument)? = nil, tenant: @escaping @Sendable (Request, Context) -> String,
        identity: @escaping @Sendable (Request, Context) -> RequestIdentity
    ) {
        self.tenants = tenants
        self.tenant = tenant
        self.identity = identity
        self.instrument = instrument
    }

    /// Binds `request.analytics` for the rest of the chain.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let decorate: @Sendable (EventOptions) -> EventOptions
        if let instrument {
            decorate = { $0.withTraceContext(instrument: instrument) }
        } else {
            decorate = { $0 }
        }
        let bound = await tenants.requestAnalytics(for: tenant(request, context), identity: identity(request, context), decorate: decorate)
        return try await BoundAnalytics.$current.withValue(bound) { try await next(request, context) }
    }
}

/// The request's analytics, for the task that handles it.
enum BoundAnalytics {
    @TaskLocal static var current: RequestAnalytics?
}

extension Request {
    /// The tenant's analytics bound to this request's identity, inside a handler behind
    /// ``AnalyticsMiddleware``; `nil` elsewhere.
    public var analytics: RequestAnalytics? { BoundAnalytics.current }
}
