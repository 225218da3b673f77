import Foundation

/// The state `getDebugInfo()` reports: the seed's fields plus delivery counters.
public struct DebugInfo: Sendable, CustomStringConvertible {
    /// Where the instance is in its life; `nil` for `shared` before `initialize` (printed as
    /// `idle`, the seed's word).
    public var lifecycle: ClientLifecycle?
    /// Events waiting to be sent.
    public var queueLength: Int
    /// The write key, masked to its last 4 characters.
    public var writeKey: String
    /// The ingestion host.
    public var ingestionHost: String
    /// Seconds between automatic flushes.
    public var flushIntervalSeconds: Int
    /// The `maxQueueEvents` option: the queue capacity when the disk log is off. See
    /// ``queueLimit`` for the limit actually in force.
    public var maxQueueEvents: Int
    /// The `maxDiskEvents` option (0: disk off).
    public var maxDiskEvents: Int
    /// The queue limit in force: where events are kept and how many at most (`nil` without the
    /// MetaRouter destination).
    public var queueLimit: QueueLimit?
    /// The circuit breaker's state.
    public var circuitState: CircuitState
    /// Milliseconds until the breaker lets a probe through.
    public var circuitRemainingMs: Int
    /// Whether an upload is in flight.
    public var flushInFlight: Bool
    /// The device's anonymous id.
    public var anonymousId: String?
    /// The current user.
    public var userId: String?
    /// The current group.
    public var groupId: String?
    /// The advertising id.
    public var advertisingId: String?
    /// Whether `Trace: true` is sent.
    public var tracing: Bool
    /// Events rejected in per-call identity mode for carrying neither userId nor anonymousId.
    public var rejectedWithoutIdentity = 0
    /// Events dropped at the call because `maxPendingEvents` were already waiting for the
    /// executor (callers outrunning the pipeline).
    public var overflowedEvents = 0
    /// Input problems reported so far, by code (`missing_event_name`, …; see `InputProblem`).
    public var invalidInput: [String: Int] = [:]
    /// Tracking-plan violations found so far.
    public var planViolations = 0
    /// Events the tracking plan dropped (block mode, or unplanned events it blocks).
    public var planBlockedEvents = 0
    /// The consent in force.
    public var consent = ConsentState.granted
    /// Events dropped because analytics consent was withdrawn.
    public var consentDroppedEvents = 0
    /// The remote rule set in force (with ``InitOptions/remoteRules``): its name and version,
    /// and where it came from.
    public var remoteRules: (name: String, version: Int, source: RemoteRulesSource)?
    /// Why the client is disabled (invalid options, or the server refused the write key).
    public var error: String?
    /// Delivery counters.
    public var stats: DeliveryStats
    /// File descriptors the instance holds now: its event log's lock and open segments. The
    /// default transport's connections are the process's, shared by every instance
    /// (`Docs/ServerSide.md`, "Descriptors").
    public var openDescriptors = 0

    /// The write key with all but its last 4 characters masked.
    package static func mask(_ writeKey: String) -> String {
        guard writeKey.count > 4 else { return String(repeating: "*", count: writeKey.count) }
        return String(repeating: "*", count: writeKey.count - 4) + writeKey.suffix(4)
    }

    /// One line per field.
    public var description: String {
        var lines = [
            "lifecycle: \(lifecycle?.rawValue ?? "idle")", "queueLength: \(queueLength)", "writeKey: \(writeKey)",
            "ingestionHost: \(ingestionHost)", "flushIntervalSeconds: \(flushIntervalSeconds)",
            "maxQueueEvents: \(maxQueueEvents)", "maxDiskEvents: \(maxDiskEvents)",
            "queueLimit: \(queueLimit.map { "\($0.maxEvents) events (\($0.storage.rawValue))" } ?? "none")",
            "circuitState: \(circuitState.rawValue)", "circuitRemainingMs: \(circuitRemainingMs)",
            "flushInFlight: \(flushInFlight)", "tracing: \(tracing)",
            "sent: \(stats.sent)", "dropped: \(stats.droppedTotal)", "openDescriptors: \(openDescriptors)",
            "rejectedWithoutIdentity: \(rejectedWithoutIdentity)", "overflowedEvents: \(overflowedEvents)",
            "consent: analytics \(consent.analytics), errors \(consent.errors)", "consentDroppedEvents: \(consentDroppedEvents)",
            "planViolations: \(planViolations)", "planBlockedEvents: \(planBlockedEvents)",
            "invalidInput: \(invalidInput.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))",
        ]
        if let anonymousId { lines.append("anonymousId: \(anonymousId)") }
        if let userId { lines.append("userId: \(userId)") }
        if let groupId { lines.append("groupId: \(groupId)") }
        if let advertisingId { lines.append("advertisingId: \(advertisingId)") }
        if let remoteRules { lines.append("remoteRules: \"\(remoteRules.name)\" version \(remoteRules.version) (\(remoteRules.source.rawValue))") }
        if let error { lines.append("error: \(error)") }
        return lines.joined(separator: "\n")
    }
}
