import Foundation
import MetaRouterCore

/// When sessions end on their own.
public struct SessionOptions: Sendable, Hashable {
    /// Whether sessions start and end on their own (default `true`).
    public var automatic: Bool
    /// Seconds without events after which the next event starts a new session (30 min).
    public var inactivityTimeout: TimeInterval
    /// Seconds in the background after which the next event starts a new session (30 min).
    public var backgroundTimeout: TimeInterval

    /// Options; the defaults are 30 minutes for both timeouts.
    ///
    /// - Parameters:
    ///   - automatic: Whether sessions start and end by themselves.
    ///   - inactivityTimeout: Seconds without an event after which the next event starts a session.
    ///   - backgroundTimeout: Seconds in the background after which returning starts a session.
    public init(automatic: Bool = true, inactivityTimeout: TimeInterval = 1800, backgroundTimeout: TimeInterval = 1800) {
        self.automatic = automatic
        self.inactivityTimeout = inactivityTimeout
        self.backgroundTimeout = backgroundTimeout
    }
}

/// Sessions: every event carries `context.sessionId` (the epoch milliseconds of its session's
/// start) and a session's first event `context.sessionStart: true` — the shape RudderStack's
/// SDKs send.
///
/// With automatic sessions (apps), a session starts with the first event, and a new one after
/// ``Options/inactivityTimeout`` without events or after the app spent longer than
/// ``Options/backgroundTimeout`` in the background (known when the lifecycle plugin runs).
/// ``startSession()`` and ``endSession()`` work either way; without automatic sessions
/// (servers, where one instance serves many people) events carry a session only between them.
/// `reset()` ends the session. Sessions live in memory: a new process starts a new one.
package final class SessionPlugin: EventPlugin, LifecycleAware {
    package typealias Options = SessionOptions

    /// After identity and context.
    package let type = PluginType.enrichment
    /// The options in force.
    package let options: Options
    /// The current session's id (epoch milliseconds of its start), if one is running.
    package private(set) var sessionId: Int64?
    private var startPending = false
    private var lastEventAt: Date?
    private var backgroundedAt: Date?
    private var clock: (any AnalyticsClock)?
    /// The shared context with the session stamped, reused while both stay the same.
    private var stamped = ContextRewrite()

    /// A session plugin with `options`.
    package init(options: Options = Options()) {
        self.options = options
    }

    /// Takes the client's clock.
    package func configure(analytics: AnalyticsClient) {
        clock = analytics.configuration.clock
    }

    /// Starts a new session now; the next event carries `sessionStart`.
    package func startSession() {
        begin(at: now())
    }

    /// Ends the session: with automatic sessions the next event starts a new one; without,
    /// events carry no session until ``startSession()``.
    package func endSession() {
        sessionId = nil
        startPending = false
    }

    /// A new user gets a new session.
    package func reset() { endSession() }

    /// Stamps the session on the event, starting one first when it is due.
    package func execute(event: consuming Event) -> Event? {
        let now = now()
        if options.automatic {
            if sessionId == nil { begin(at: now) } else if let lastEventAt, now.timeIntervalSince(lastEventAt) >= options.inactivityTimeout {
                begin(at: now)
            }
        }
        lastEventAt = now
        guard let sessionId else { return event }
        if startPending {
            event.context["sessionId"] = .int(sessionId)
            event.context["sessionStart"] = .bool(true)
            startPending = false
        } else {
            event.context = stamped.apply(to: event.context, for: .int(sessionId)) { $0["sessionId"] = .int(sessionId) }
        }
        return event
    }

    /// Notes when the app left the foreground.
    package func applicationDidEnterBackground() {
        backgroundedAt = now()
    }

    /// Ends the session when the app was away longer than the background timeout.
    package func applicationDidEnterForeground() {
        defer { backgroundedAt = nil }
        guard options.automatic, let backgroundedAt, now().timeIntervalSince(backgroundedAt) >= options.backgroundTimeout else { return }
        endSession()
    }

    /// Nothing to keep.
    package func applicationWillTerminate() {}

    private func begin(at date: Date) {
        sessionId = Timestamp.epochMillis(date)
        startPending = true
    }

    private func now() -> Date { clock?.now() ?? Date() }
}
