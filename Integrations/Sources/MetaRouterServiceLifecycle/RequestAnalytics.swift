import Foundation
import MetaRouter

/// Who a request acts for, as the app decides it (a user id from its authentication, an
/// anonymous id from a header or a cookie).
public struct RequestIdentity: Sendable, Hashable {
    /// The signed-in user, if any.
    public var userId: String?
    /// The visitor's anonymous id, if any.
    public var anonymousId: String?

    /// An identity; an event needs at least one of the two (`.perCall` identity mode).
    public init(userId: String? = nil, anonymousId: String? = nil) {
        self.userId = userId
        self.anonymousId = anonymousId
    }
}

/// A tenant's analytics bound to one request's identity: what a web framework's middleware
/// hands its handlers (`request.analytics`). Every call returns at once — no I/O, no waiting on
/// the event loop — and carries the request's identity (and, with tracing on, its trace
/// context) unless the call's options say otherwise. When the request's tenant was refused
/// (``refusal``), every call is dropped and counted (``AnalyticsTenants/droppedEvents``).
public struct RequestAnalytics: Sendable {
    /// The tenant's instance; `nil` when the tenant was refused.
    public let analytics: (Analytics)?
    /// Why the request's tenant was refused, if it was.
    public let refusal: TenantRefusal?
    /// The request's identity.
    public let identity: RequestIdentity
    private let decorate: @Sendable (EventOptions) -> EventOptions
    private let dropped: @Sendable () -> Void

    /// `analytics` for a request acting for `identity`; `decorate` adjusts each call's options
    /// (the tracing products add the trace context there).
    public init(analytics: Analytics, identity: RequestIdentity, decorate: @escaping @Sendable (EventOptions) -> EventOptions = { $0 }) {
        self.analytics = analytics
        self.refusal = nil
        self.identity = identity
        self.decorate = decorate
        self.dropped = {}
    }

    /// A request whose tenant was refused for `refusal`: each call is dropped and reported to
    /// `dropped`.
    init(refusal: TenantRefusal, identity: RequestIdentity, dropped: @escaping @Sendable () -> Void) {
        self.analytics = nil
        self.refusal = refusal
        self.identity = identity
        self.decorate = { $0 }
        self.dropped = dropped
    }

    /// Records a user action for the request's identity.
    public func track(_ event: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        guard let analytics else { return dropped() }
        analytics.track(event, properties: properties, options: resolved(options))
    }

    /// Records a page view for the request's identity.
    public func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        guard let analytics else { return dropped() }
        analytics.page(name, properties: properties, options: resolved(options))
    }

    /// Records the request's user's traits (the request needs a `userId`).
    public func identify(traits: [String: Any]? = nil, options: EventOptions? = nil) {
        guard let analytics else { return dropped() }
        guard let userId = options?.userId ?? identity.userId else { return }
        analytics.identify(userId, traits: traits, options: resolved(options))
    }

    /// Records the request's user's group and its traits.
    public func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        guard let analytics else { return dropped() }
        analytics.group(groupId, traits: traits, options: resolved(options))
    }

    /// The call's options with the request's identity filled in where the call left it out.
    private func resolved(_ options: EventOptions?) -> EventOptions {
        var resolved = options ?? EventOptions()
        if resolved.userId == nil { resolved.userId = identity.userId }
        if resolved.anonymousId == nil { resolved.anonymousId = identity.anonymousId }
        return decorate(resolved)
    }
}
