import Foundation

/// The host application as analytics reports it in `context.app`.
public struct ApplicationInfo: Sendable, Hashable {
    /// Display name.
    public var name: String?
    /// Marketing version, e.g. `2.4.1`.
    public var version: String?
    /// Build number.
    public var build: String?
    /// Bundle identifier or service name.
    public var namespace: String?

    /// Creates application info; every field is optional.
    ///
    /// - Parameters:
    ///   - name: The application's name.
    ///   - version: Its marketing version.
    ///   - build: Its build number.
    ///   - namespace: Its bundle identifier or package name.
    public init(name: String? = nil, version: String? = nil, build: String? = nil, namespace: String? = nil) {
        self.name = name
        self.version = version
        self.build = build
        self.namespace = namespace
    }
}

/// What the built-in plugins of a client read: the write key, where to log and persist, the
/// clock and the host application. The facade builds it from `InitOptions`.
package struct Configuration: Sendable {
    /// The source's write key.
    package var writeKey: String
    /// Where log lines go.
    package var logger: AnalyticsLogger
    /// The time source for timestamps, timers and backoff.
    package var clock: any AnalyticsClock
    /// Small persisted values (identity).
    package var storage: any KeyValueStore
    /// A directory owned by this client for files (the event log), or `nil` for none.
    package var storageDirectory: URL? {
        get { storageLocation?.url }
        set { storageLocation = newValue.map(LazyFileURL.init) }
    }
    /// ``storageDirectory``, made a URL when first asked for.
    package var storageLocation: LazyFileURL?
    /// The host application.
    package var application: ApplicationInfo
    /// When set, the client configures its plugins only once the gate opens; calls made before
    /// wait in memory, in order (iOS prewarming, a predecessor still shutting down).
    package var startGate: (any StartGate)?
    /// Events waiting for the executor at most (default 50,000, about 75 MB). Beyond it, new
    /// events are dropped at the call and counted (`getDebugInfo().overflowedEvents`), with
    /// one log line per 10 s: callers that outrun the pipeline for good cannot grow the heap
    /// without bound. Operations (identify state, flush, reset) are never dropped.
    package var maxPendingEvents = Defaults.maxPendingEvents
    /// Called with every problem found in what callers pass (a dropped value, a dropped call),
    /// on the thread that found it: keep it short. See ``InputProblem``.
    package var onInvalidInput: (@Sendable (InputProblem) -> Void)?

    /// Creates a configuration. Defaults suit tests: memory storage, no directory.
    ///
    /// - Parameters:
    ///   - writeKey: The source's write key.
    ///   - logger: Where the client logs.
    ///   - clock: Wall time, uptime and timers.
    ///   - storage: Where identity is persisted.
    ///   - storageDirectory: The directory the client's files go in.
    ///   - application: The host application's name and version.
    package init(
        writeKey: String,
        logger: AnalyticsLogger = AnalyticsLogger(),
        clock: any AnalyticsClock = SystemClock(),
        storage: any KeyValueStore = InMemoryKeyValueStore(),
        storageDirectory: URL? = nil,
        application: ApplicationInfo = ApplicationInfo()
    ) {
        self.writeKey = writeKey
        self.logger = logger
        self.clock = clock
        self.storage = storage
        storageLocation = storageDirectory.map(LazyFileURL.init)
        self.application = application
    }
}

/// Per-call overrides, for servers that act for many users: each is used instead of what the
/// identity and context plugins would fill in.
public struct EventOptions: Sendable, Hashable {
    /// The userId for this event only (it is not stored).
    public var userId: String?
    /// The anonymousId for this event only (it is not stored).
    public var anonymousId: String?
    /// The event's timestamp instead of the time of the call.
    public var timestamp: Date?
    /// Context merged over the plugins' context (per-call values win, objects merge).
    public var context: [String: JSON]?
    /// Per-destination switches sent as `integrations`.
    public var integrations: [String: JSON]?

    /// Creates overrides; every field is optional.
    ///
    /// - Parameters:
    ///   - userId: The user this call is for.
    ///   - anonymousId: The visitor this call is for.
    ///   - timestamp: When it happened (now unless given).
    ///   - context: Context keys merged into the event's.
    ///   - integrations: Which destinations receive it.
    public init(
        userId: String? = nil,
        anonymousId: String? = nil,
        timestamp: Date? = nil,
        context: [String: JSON]? = nil,
        integrations: [String: JSON]? = nil
    ) {
        self.userId = userId
        self.anonymousId = anonymousId
        self.timestamp = timestamp
        self.context = context
        self.integrations = integrations
    }
}

/// Where a client is in its life, as `getDebugInfo` reports it.
public enum ClientLifecycle: String, Sendable, Hashable {
    /// Plugins are being configured; calls wait in order.
    case initializing
    /// Running.
    case ready
    /// A reset is on its way through the pipeline.
    case resetting
    /// Stopped for good (invalid options, or the server rejected the write key); calls are dropped.
    case disabled
    /// `shutdown()` was called; calls are dropped.
    case shutDown
}
