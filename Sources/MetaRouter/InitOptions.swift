import Foundation

/// Which built-in plugins a client starts with. Remove one to replace it with your own.
public struct DefaultPlugins: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// anonymousId / userId / groupId / traits.
    public static let identity = DefaultPlugins(rawValue: 1 << 0)
    /// app, device, os, library, locale, timezone.
    public static let context = DefaultPlugins(rawValue: 1 << 1)
    /// The IDFA in `context.device.advertisingId`, set with `setAdvertisingId(_:)`.
    public static let advertisingId = DefaultPlugins(rawValue: 1 << 2)
    /// Delivery to the ingestion host (the MetaRouter destination).
    public static let delivery = DefaultPlugins(rawValue: 1 << 3)
    /// `context.sessionId` / `context.sessionStart` (see ``SessionOptions``).
    public static let sessions = DefaultPlugins(rawValue: 1 << 4)
    /// All of them.
    public static let all: DefaultPlugins = [.identity, .context, .advertisingId, .delivery, .sessions]
}

/// How to set up a client: the seed README's options, plus what servers and tests need. The
/// options of a pillar built as a trait (`Privacy`, `TrackingPlan`, `ErrorCapture`,
/// `CrashCapture`, `Rules`, `Signals`, `Entitlements`) are there when its trait is on, as it is
/// by default.
public struct InitOptions: Sendable {
    /// The source's write key (required, not empty).
    public var writeKey: String
    /// The ingestion host, `http` or `https`; a path prefix is kept.
    public var ingestionHost: String
    /// Debug logging from the start.
    public var debug: Bool
    /// Seconds events wait at most for an automatic flush (default 10, must be > 0): the timer
    /// starts with the first event queued after a flush, and none runs while nothing is queued.
    public var flushIntervalSeconds: Int
    /// Events kept in the queue when the disk log is off (`maxDiskEvents = 0`) or cannot be
    /// opened; the oldest are dropped beyond it (default 2000, must be > 0). With the disk log
    /// on, `maxDiskEvents` and `maxDiskBytes` are the queue's limits; `getDebugInfo()` reports
    /// the capacity in force (`maxQueueEvents`, `queueOnDisk`).
    public var maxQueueEvents: Int
    /// Events kept on disk, which is then the queue's limit (default 10000; 0 turns disk off;
    /// negative is rejected).
    public var maxDiskEvents: Int
    /// Emit Application Installed / Updated / Opened / Backgrounded (off by default).
    public var trackLifecycleEvents: Bool

    /// The host application's name, version and build (on Linux there is no bundle to read).
    public var application = ApplicationInfo()
    /// The directory this client owns for its files; by default one per write key under
    /// Application Support (Apple) or `$XDG_DATA_HOME` / `~/.local/share` (Linux).
    public var storageDirectory: URL?
    /// Where identity is persisted; by default `UserDefaults.standard` on Apple platforms and a
    /// file in ``storageDirectory`` on Linux.
    public var keyValueStore: (any KeyValueStore)?
    /// Where log lines go (standard error by default).
    public var logSink: (any LogSink)?
    /// The HTTP transport (libcurl on Linux, URLSession on Apple platforms by default).
    public var transport: (any HTTPTransport)?
    /// The clock (wall clock by default; the package's tests inject a manual one).
    package var clock: (any AnalyticsClock)?
    /// Built-in plugins to start with.
    public var defaultPlugins = DefaultPlugins.all
    /// Makes extra plugins for the client, added after the built-in ones. It runs once, on the
    /// instance's own thread, before any call reaches the pipeline (not on the thread that
    /// creates the instance); it must not wait for that instance.
    public var plugins: (@Sendable () -> [any Plugin])?
    /// Called with every problem found in what the app passes — a value dropped from an event
    /// (`event_property_not_finite`, …) or a call dropped (`missing_event_name`, …) — on the
    /// thread that found it; keep it short. The problems are also logged and counted
    /// (`getDebugInfo().invalidInput`). See ``InputProblem``.
    public var onInvalidInput: (@Sendable (InputProblem) -> Void)?
    /// Called with events dropped for good, with the reason, on the executor (see the threading
    /// contract in `Docs/Architecture.md`).
    public var onPermanentFailure: (@Sendable (PermanentFailure) -> Void)?
    /// Where lifecycle transitions come from when `trackLifecycleEvents` is on: UIKit or AppKit
    /// on Apple platforms, the server process elsewhere, unless a source driven by hand is given.
    public var lifecycleSource: ManualLifecycleSource?
    /// On a server, signals (e.g. `[SIGTERM, SIGINT]`) after which the SDK delivers what is
    /// queued before letting the signal end the process; signals the host handles itself are
    /// left alone. Used with the default server lifecycle source.
    public var terminateOnSignals: [Int32] = []
    /// Bytes the disk log's files hold at most, plus one segment (default 50 MB, at least 64 KiB
    /// while the disk log is on: smaller is rejected), so an offline device never fills its
    /// disk; the oldest events go first.
    public var maxDiskBytes = Defaults.maxDiskBytes
    /// Seconds an event may wait on this device (default 7 days, must be > 0), counted from when
    /// it was queued, not from its timestamp, and not by the wall clock alone: events that have
    /// waited longer are dropped, counted in the recovery report, when the log is opened at the
    /// next start.
    public var maxDiskAgeSeconds = Defaults.maxDiskAgeSeconds
    #if Privacy
    /// The consent in force until `setConsent(_:)` changes it (both channels granted by
    /// default, as in the seed). A consent set at run time is persisted and wins over this at
    /// the next start; `forget()` removes it.
    public var initialConsent = ConsentState.granted
    #endif
    /// When sessions end on their own (30 minutes without events, or in the background). With
    /// ``identityMode`` `.perCall` (a server) sessions are never automatic: one instance serves
    /// many people; `startSession()` / `endSession()` still work.
    public var sessions = SessionOptions()
    #if TrackingPlan
    /// A tracking plan enforced on the device (none by default): see `Docs/Privacy.md`,
    /// "Tracking plan". `setTrackingPlan(_:)` replaces it at run time.
    public var trackingPlan: TrackingPlan?
    /// What happens to an event that breaks the plan: `.report` (deliver; the default),
    /// `.strip` (remove what the plan does not allow) or `.block` (drop).
    public var trackingPlanMode = TrackingPlanMode.report
    /// Called with each event that breaks the plan, its violations and what was done, on the
    /// executor (see the threading contract in `Docs/Architecture.md`).
    public var onPlanViolation: (@Sendable (PlanViolationReport) -> Void)?
    #endif
    #if ErrorCapture
    /// Breadcrumbs kept for error reports (default 50; see `Docs/ErrorCapture.md`).
    public var breadcrumbCapacity = 50
    #endif
    /// Send batches gzip-compressed (`Content-Encoding: gzip`; off by default: the ingestion
    /// host must accept it). About a fifth of the bytes on the wire; see `Docs/Delivery.md`.
    public var gzipRequests = false
    #if Rules
    /// A rule set fetched from a URL and refreshed without an app update (off when `nil`); see
    /// `Docs/TransformRules.md`, "Rules without an app update".
    public var remoteRules: RemoteRulesOptions?
    #endif
    #if Signals
    /// Signals (off when `nil`): the buffer, broadcasters, instrumentation and event generators
    /// that `emit(_:)` feeds; see `Docs/Signals.md`.
    public var signals: SignalsConfiguration?
    #endif
    #if Entitlements
    /// Entitlements (`isEntitled`, `refreshEntitlements`, `recordPurchase`); off when `nil`,
    /// and then the instance holds no entitlement state and makes no entitlement request.
    public var entitlements: EntitlementOptions?
    #endif
    #if CrashCapture
    /// Report crashes (off by default): signal handlers, chained to those installed before,
    /// write a record that the next start sends as an `Application Crashed` event with the
    /// breadcrumbs of the moment; see `Docs/ErrorCapture.md`.
    public var captureCrashes = false
    #endif
    #if ErrorCapture
    /// Limits and the `beforeSendError` hook of `captureError(_:)`.
    public var errorCapture = ErrorCaptureOptions()
    #endif
    #if Privacy
    /// Scrub personal data (email addresses, Luhn-valid card numbers, ``piiScrubbing``'s keys
    /// and patterns) from properties before anything queues or writes them. Off by default,
    /// for the MetaRouter SDK's wire output; `setScrubPII(_:)` changes it at run time.
    public var scrubPII = false
    /// What the scrubber looks for beyond emails and card numbers, and whether it scrubs
    /// `identify` / `group` traits (not by default).
    public var piiScrubbing = PIIScrubbingOptions()
    #endif
    /// Events waiting for the executor at most (default 50,000): beyond it, new events are
    /// dropped at the call, counted in `getDebugInfo().overflowedEvents` and logged once per
    /// 10 s, so callers that outrun the pipeline for good cannot grow the heap without bound.
    public var maxPendingEvents = Defaults.maxPendingEvents
    /// Seconds an upload may take (default 15).
    public var requestTimeoutSeconds = Defaults.requestTimeoutSeconds
    /// A request leaves once this many events are queued (default 20, must be > 0), besides
    /// the interval and explicit flushes; after a delivered batch the next one waits for this
    /// many too, unless a flush is still sending what it found queued. A server at thousands
    /// of events per second raises it with ``maxBatchSize``: fewer, fuller requests.
    public var flushAt = Defaults.flushAt
    /// Events per request at most (default 100, must be > 0); a request's event payloads also
    /// stay within 500,000 bytes.
    public var maxBatchSize = Defaults.maxBatchSize
    /// Whose identity events carry: `.device` (the default: an app, one person at a time, a
    /// persisted anonymousId) or `.perCall` (a server: no persisted identity; every event
    /// carries its own `userId` or `anonymousId` in ``EventOptions``, and one that carries
    /// neither is rejected and counted). See ``IdentityMode``.
    public var identityMode = IdentityMode.device
    /// Allows plain `http://` to a host that is not loopback. Off by default: the write key
    /// travels in every body, so it must not cross a network in clear text. Loopback
    /// (`localhost`, `127.0.0.0/8`, `::1`) is always allowed.
    public var allowInsecureHTTP = false

    /// The seed README's initializer, with the host as a string.
    ///
    /// - Parameters:
    ///   - writeKey: The source's write key.
    ///   - ingestionHost: The ingestion cluster's base URL.
    ///   - debug: Whether debug logging is on.
    ///   - flushIntervalSeconds: Seconds between timed flushes.
    ///   - maxQueueEvents: Events kept in memory at most.
    ///   - maxDiskEvents: Events kept in the disk log at most (0: memory only).
    ///   - trackLifecycleEvents: Whether the `Application …` events are sent.
    public init(
        writeKey: String,
        ingestionHost: String,
        debug: Bool = false,
        flushIntervalSeconds: Int = Defaults.flushIntervalSeconds,
        maxQueueEvents: Int = Defaults.maxQueueEvents,
        maxDiskEvents: Int = Defaults.maxDiskEvents,
        trackLifecycleEvents: Bool = false
    ) {
        self.writeKey = writeKey
        self.ingestionHost = ingestionHost
        self.debug = debug
        self.flushIntervalSeconds = flushIntervalSeconds
        self.maxQueueEvents = maxQueueEvents
        self.maxDiskEvents = maxDiskEvents
        self.trackLifecycleEvents = trackLifecycleEvents
    }

    /// The seed README's initializer, with the host as a URL.
    ///
    /// - Parameters:
    ///   - writeKey: The source's write key.
    ///   - ingestionHost: The ingestion cluster's base URL.
    ///   - debug: Whether debug logging is on.
    ///   - flushIntervalSeconds: Seconds between timed flushes.
    ///   - maxQueueEvents: Events kept in memory at most.
    ///   - maxDiskEvents: Events kept in the disk log at most (0: memory only).
    ///   - trackLifecycleEvents: Whether the `Application …` events are sent.
    public init(
        writeKey: String,
        ingestionHost: URL,
        debug: Bool = false,
        flushIntervalSeconds: Int = Defaults.flushIntervalSeconds,
        maxQueueEvents: Int = Defaults.maxQueueEvents,
        maxDiskEvents: Int = Defaults.maxDiskEvents,
        trackLifecycleEvents: Bool = false
    ) {
        self.init(
            writeKey: writeKey, ingestionHost: ingestionHost.absoluteString, debug: debug,
            flushIntervalSeconds: flushIntervalSeconds, maxQueueEvents: maxQueueEvents,
            maxDiskEvents: maxDiskEvents, trackLifecycleEvents: trackLifecycleEvents)
    }

    /// The problems that make these options unusable, empty when they are valid.
    package func validationErrors() -> [String] {
        validationErrors(host: hostURL.map { ($0.scheme?.lowercased() ?? "", $0.host ?? "") })
    }

    /// ``validationErrors()`` with the host already read: its lowercased scheme and its host,
    /// or `nil` when the text is not an http(s) URL with a host.
    package func validationErrors(host: (scheme: String, host: String)?) -> [String] {
        var errors: [String] = []
        if writeKey.isBlank { errors.append("writeKey is empty") }
        if let host {
            if host.scheme == "http", !allowInsecureHTTP, !Self.isLoopback(host.host) {
                errors.append(
                    "ingestionHost \"\(ingestionHost)\" uses plain http to a host that is not loopback; the write key would travel "
                        + "in clear text: use https, or set allowInsecureHTTP = true if the network is trusted")
            }
        } else {
            errors.append("ingestionHost \"\(ingestionHost)\" is not an http(s) URL with a host")
        }
        if flushIntervalSeconds <= 0 { errors.append("flushIntervalSeconds must be > 0 (got \(flushIntervalSeconds))") }
        if maxQueueEvents <= 0 { errors.append("maxQueueEvents must be > 0 (got \(maxQueueEvents))") }
        if flushAt <= 0 { errors.append("flushAt must be > 0 (got \(flushAt))") }
        if maxBatchSize <= 0 { errors.append("maxBatchSize must be > 0 (got \(maxBatchSize))") }
        if maxDiskEvents < 0 { errors.append("maxDiskEvents must be >= 0 (got \(maxDiskEvents))") }
        if maxDiskEvents != 0, maxDiskBytes < Defaults.minDiskBytes {
            errors.append(
                "maxDiskBytes must be at least \(Defaults.minDiskBytes) (64 KiB) while the disk log is on (got \(maxDiskBytes)); "
                    + "set maxDiskEvents = 0 to keep the queue in memory only")
        }
        if !(maxDiskAgeSeconds > 0) { errors.append("maxDiskAgeSeconds must be > 0 (got \(maxDiskAgeSeconds))") }
        if maxPendingEvents <= 0 { errors.append("maxPendingEvents must be > 0 (got \(maxPendingEvents))") }
        if identityMode == .perCall && trackLifecycleEvents {
            errors.append(
                "trackLifecycleEvents needs a device identity, and identityMode .perCall keeps none: "
                    + "turn one of them off")
        }
        return errors
    }

    /// A stable, file-name-safe name for `writeKey` (a hash of it: the key itself never appears
    /// in a path). The default storage directory ends with it; a server that keeps each
    /// tenant's files under its own root can use it for ``storageDirectory``.
    ///
    /// - Parameter writeKey: The write key.
    /// - Returns: The directory name the instance's files go under.
    public static func storageName(for writeKey: String) -> String {
        StorageFiles.namespace(for: writeKey)
    }

    /// Whether `host` names this machine: `localhost`, an address in `127.0.0.0/8`, or `::1`
    /// (bracketed or not).
    static func isLoopback(_ host: String) -> Bool {
        // Over ASCII bytes, not `lowercased()`, `split` and integer parsing: their generic code
        // costs the first call in a process (an app's `initialize`) lookups in the runtime.
        var name = host.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        if name.first == UInt8(ascii: "["), name.last == UInt8(ascii: "]") { name = Array(name.dropFirst().dropLast()) }
        let localhost = Array("localhost".utf8)
        if name == localhost || name == Array("::1".utf8) { return true }
        if name.count > localhost.count, name.suffix(localhost.count + 1).elementsEqual(".localhost".utf8) { return true }
        // 127.a.b.c: four parts of decimal digits, each at most 255, the first written `127`.
        var parts: [Int] = []
        var part: Int?
        for byte in name + [UInt8(ascii: ".")] {
            if byte == UInt8(ascii: ".") {
                guard let value = part, parts.count < 4 else { return false }
                parts.append(value)
                part = nil
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                let value = (part ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
                guard value <= 255 else { return false }
                part = value
            } else {
                return false
            }
        }
        return parts.count == 4 && name.starts(with: "127.".utf8)
    }

    /// The ingestion host as a URL: whitespace and one trailing slash trimmed; `nil` unless it
    /// is `http` or `https` with a host.
    package var hostURL: URL? {
        guard let url = URL(string: hostText), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }

    /// The ingestion host's text: whitespace and one trailing slash trimmed.
    package var hostText: String {
        var text = ingestionHost.trimmingBlanks()
        if text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
