import Foundation
import MetaRouter
import Synchronization

/// One analytics instance per tenant write key, for a server: the known tenants' instances are
/// created when ``AnalyticsService`` starts (so what their disk logs kept from the last run is
/// delivered now, not at each tenant's first request), any other tenant's on its first request.
/// Requests never shut an instance down; the service does, once, at graceful shutdown. A
/// request that comes after the drain began gets an instance that drops its calls.
public final class AnalyticsTenants: Sendable {
    private struct State {
        var instances: [String: any AnalyticsInterface] = [:]
        var draining = false
    }

    private let known: [String]
    private let options: @Sendable (String) -> InitOptions
    private let state = Mutex(State())

    /// Tenants whose instances are made with `options(writeKey)`; `known` are created at start.
    public init(known: [String] = [], options: @escaping @Sendable (_ writeKey: String) -> InitOptions) {
        self.known = known
        self.options = options
    }

    /// The instance for `writeKey`: a lock and a lookup once it exists.
    public func instance(for writeKey: String) -> any AnalyticsInterface {
        if let existing = state.withLock({ $0.draining ? nil : $0.instances[writeKey] }) { return existing }
        // Made outside the lock: the SDK's own registry returns one instance per write key to
        // racing requests, and the options closure may take its time.
        let made = MetaRouter.Analytics.instance(for: options(writeKey))
        return state.withLock { state -> any AnalyticsInterface in
            if state.draining { return state.instances[writeKey] ?? Self.closed }
            if let existing = state.instances[writeKey] { return existing }
            state.instances[writeKey] = made
            return made
        }
    }

    /// Every instance made so far, by write key.
    public var instances: [(writeKey: String, analytics: any AnalyticsInterface)] {
        state.withLock { $0.instances.map { ($0.key, $0.value) } }
    }

    /// Creates the known tenants' instances.
    public func start() {
        for writeKey in known { _ = instance(for: writeKey) }
    }

    /// Delivers or persists every instance's queue within `timeout` seconds, side by side, and
    /// stops them; later requests get an instance that drops calls. Returns whether every
    /// accepted event was delivered or written to disk in time.
    @discardableResult
    public func drain(timeout: TimeInterval) async -> Bool {
        let all = state.withLock { state -> [any AnalyticsInterface] in
            state.draining = true
            return Array(state.instances.values)
        }
        return await withTaskGroup(of: Bool.self) { group in
            for analytics in all { group.addTask { await analytics.shutdown(timeout: timeout) } }
            return await group.reduce(true) { $0 && $1 }
        }
    }

    /// What a request gets once the drain began: an inert instance (its options are invalid on
    /// purpose) that drops every call.
    private static let closed: any AnalyticsInterface = {
        var options = InitOptions(writeKey: "", ingestionHost: "https://closed.invalid")
        options.logSink = SilentLogSink()
        return MetaRouter.Analytics.instance(for: options)
    }()
}

/// Discards the closed instance's one line about its (deliberately) invalid options.
private struct SilentLogSink: LogSink {
    func log(level: LogLevel, message: String) {}
}
