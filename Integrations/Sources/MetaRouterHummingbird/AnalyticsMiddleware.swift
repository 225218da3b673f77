import Hummingbird
import Instrumentation
import MetaRouter
import MetaRouterServiceLifecycle
import MetaRouterTracing

/// A Hummingbird request context that carries the request's analytics, as Hummingbird 2 carries
/// per-request state: ``AnalyticsMiddleware`` sets ``analytics`` and every handler behind it
/// reads `context.analytics`. An app with a context of its own adds the one property; one
/// without uses ``BasicAnalyticsRequestContext``.
public protocol AnalyticsRequestContext: RequestContext {
    /// The tenant's analytics bound to this request's identity; `nil` before the middleware.
    var analytics: RequestAnalytics? { get set }
}

/// Hummingbird's basic request context plus ``AnalyticsRequestContext/analytics``:
/// `Router(context: BasicAnalyticsRequestContext.self)`.
public struct BasicAnalyticsRequestContext: AnalyticsRequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The request's analytics, set by ``AnalyticsMiddleware``.
    public var analytics: RequestAnalytics?

    /// A context for a request that has just arrived.
    ///
    /// - Parameter source: What Hummingbird makes every context from (the channel, the logger).
    public init(source: Source) {
        coreContext = .init(source: source)
        analytics = nil
    }
}

/// Hummingbird middleware that gives every handler behind it `context.analytics`: the tenant's
/// instance (from an `AnalyticsTenants`) bound to the request's identity, which the app
/// resolves with its own closures. Given an `instrument` (`InstrumentationSystem.instrument`
/// once a tracer is bootstrapped), each event carries the request's trace context
/// (`context.trace`). It does no I/O and never waits for delivery; a tenant the tenants' policy
/// refuses gives a `context.analytics` that drops its calls, and the handler runs as usual.
public struct AnalyticsMiddleware<Context: AnalyticsRequestContext>: RouterMiddleware {
    private let tenants: AnalyticsTenants
    private let tenant: @Sendable (Request, Context) -> String
    private let identity: @Sendable (Request, Context) -> RequestIdentity
    private let instrument: (any Instrument)?

    /// Middleware choosing the tenant's write key with `tenant` and the request's identity with
    /// `identity`.
    ///
    /// - Parameters:
    ///   - tenants: The admitted tenants; a key they refuse gives analytics that drop calls.
    ///   - instrument: Propagates the request's trace context onto its events, when given.
    ///   - tenant: The tenant's write key for a request (a header, a route parameter).
    ///   - identity: The user or visitor a request acts for.
    public init(
        tenants: AnalyticsTenants, instrument: (any Instrument)? = nil, tenant: @escaping @Sendable (Request, Context) -> String,
        identity: @escaping @Sendable (Request, Context) -> RequestIdentity
    ) {
        self.tenants = tenants
        self.tenant = tenant
        self.identity = identity
        self.instrument = instrument
    }

    /// Sets `context.analytics` for the rest of the chain.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - context: Its context, passed on with ``AnalyticsRequestContext/analytics`` set.
    ///   - next: The rest of the chain.
    /// - Returns: What the rest of the chain answers.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let decorate: @Sendable (EventOptions) -> EventOptions
        if let instrument {
            decorate = { $0.withTraceContext(instrument: instrument) }
        } else {
            decorate = { $0 }
        }
        var context = context
        context.analytics = await tenants.requestAnalytics(for: tenant(request, context), identity: identity(request, context), decorate: decorate)
        return try await next(request, context)
    }
}
