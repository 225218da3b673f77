import Foundation

/// The state `getDebugInfo()` reports: the seed's fields, delivery counters, and the consent
/// and remote rules in force. ``description`` prints these and more (the disk log, descriptors,
/// input problems, plan violations, entitlement refreshes), one line per field.
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
    /// The queue's capacity in force: `maxDiskEvents` when the disk log holds the queue,
    /// `maxQueueEvents` otherwise (0 without the MetaRouter destination). Beyond it the oldest
    /// events are dropped (`stats.dropped[.queueFull]`).
    public var maxQueueEvents: Int
    /// Whether the durable disk log holds the queue; `false` when `maxDiskEvents` is 0 or the
    /// log could not be opened (``error`` says why), and the queue is in memory only.
    public var queueOnDisk: Bool
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
    package var tracing: Bool
    /// Input problems reported so far, by code (`missing_event_name`, …; see `InputProblem`).
    package var invalidInput: [String: Int] = [:]
    #if TrackingPlan
    /// Tracking-plan violations found so far.
    package var planViolations = 0
    #endif
    #if Privacy
    /// The consent in force.
    public var consent = ConsentState.granted
    #endif
    #if Rules
    /// The remote rule set in force (with ``InitOptions/remoteRules``): its name and version.
    /// ``description`` also says where it came from (fetched, stored, fallback).
    public var remoteRules: (name: String, version: Int)? { remoteRulesInForce.map { ($0.name, $0.version) } }
    /// The remote rule set in force, and where it came from.
    package var remoteRulesInForce: (name: String, version: Int, source: RemoteRulesSource)?
    #endif
    #if Entitlements
    /// When the last entitlement refresh failed (with ``InitOptions/entitlements``); `nil` once
    /// one succeeds. The last known good set stays in force meanwhile.
    package var entitlementsRefreshFailedAt: Date?
    #endif
    /// Why the client is disabled (invalid options, or the server refused the write key).
    public var error: String?
    /// Events queued, sent and retried, and every event dropped for good, by reason: in
    /// delivery, and before it (`overflow`, `noIdentity`, `consent`, `trackingPlan`).
    public var stats: DeliveryStats
    /// The same counters for each destination of your own (a `DurableDestination`), by its key;
    /// the built-in destination's are ``stats``.
    public var destinations: [String: DeliveryStats] = [:]
    /// File descriptors the instance holds now: its event log's lock and open segments. The
    /// default transport's connections are the process's, shared by every instance
    /// (`Docs/ServerSide.md`, "Descriptors").
    package var openDescriptors = 0

    /// The write key with all but its last 4 characters masked.
    package static func mask(_ writeKey: String) -> String {
        guard writeKey.count > 4 else { return String(repeating: "*", count: writeKey.count) }
        return String(repeating: "*", count: writeKey.count - 4) + writeKey.suffix(4)
    }

    public var description: String {
        var lines = [
            "lifecycle: \(lifecycle?.rawValue ?? "idle")", "queueLength: \(queueLength)", "writeKey: \(writeKey)",
            "ingestionHost: \(ingestionHost)", "flushIntervalSeconds: \(flushIntervalSeconds)",
            "maxQueueEvents: \(maxQueueEvents)", "queueOnDisk: \(queueOnDisk)",
            "circuitState: \(circuitState.rawValue)", "circuitRemainingMs: \(circuitRemainingMs)",
            "flushInFlight: \(flushInFlight)", "tracing: \(tracing)",
            "sent: \(stats.sent)", "retries: \(stats.retries)",
            "dropped: \(stats.droppedTotal)\(Self.byReason(stats.dropped))", "openDescriptors: \(openDescriptors)",
        ]
        for (key, figures) in destinations.sorted(by: { $0.key < $1.key }) {
            lines.append("destination \"\(key)\": sent \(figures.sent), retries \(figures.retries), dropped \(figures.droppedTotal)\(Self.byReason(figures.dropped))")
        }
        #if Privacy
        lines.append("consent: analytics \(consent.analytics), errors \(consent.errors)")
        #endif
        #if TrackingPlan
        lines.append("planViolations: \(planViolations)")
        #endif
        lines.append("invalidInput: \(invalidInput.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
        if let anonymousId { lines.append("anonymousId: \(anonymousId)") }
        if let userId { lines.append("userId: \(userId)") }
        if let groupId { lines.append("groupId: \(groupId)") }
        if let advertisingId { lines.append("advertisingId: \(advertisingId)") }
        #if Rules
        if let remoteRules = remoteRulesInForce { lines.append("remoteRules: \"\(remoteRules.name)\" version \(remoteRules.version) (\(remoteRules.source.rawValue))") }
        #endif
        #if Entitlements
        if let entitlementsRefreshFailedAt { lines.append("entitlementsRefreshFailedAt: \(entitlementsRefreshFailedAt)") }
        #endif
        if let error { lines.append("error: \(error)") }
        return lines.joined(separator: "\n")
    }

    /// ` (reason=count, …)` for the reasons with drops, in the enum's order; empty without any.
    private static func byReason(_ dropped: [DropReason: Int]) -> String {
        let parts = DropReason.allCases.compactMap { reason in dropped[reason].flatMap { $0 > 0 ? "\(reason.rawValue)=\($0)" : nil } }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}
