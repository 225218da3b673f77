import Foundation

/// The state `getDebugInfo()` reports: the seed's fields plus delivery counters.
public struct DebugInfo: Sendable, CustomStringConvertible {
    /// idle (not initialized), initializing, ready, resetting, disabled or shutDown.
    public var lifecycle: String
    /// Events waiting to be sent.
    public var queueLength: Int
    /// The write key, masked to its last 4 characters.
    public var writeKey: String
    /// The ingestion host.
    public var ingestionHost: String
    /// Seconds between automatic flushes.
    public var flushIntervalSeconds: Int
    /// Queue capacity.
    public var maxQueueEvents: Int
    /// Disk capacity (0: disk off).
    public var maxDiskEvents: Int
    /// closed, open or halfOpen.
    public var circuitState: String
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
    /// Why the client is disabled (invalid options, or the server refused the write key).
    public var error: String?
    /// Delivery counters.
    public var stats: DeliveryStats

    /// The write key with all but its last 4 characters masked.
    public static func mask(_ writeKey: String) -> String {
        guard writeKey.count > 4 else { return String(repeating: "*", count: writeKey.count) }
        return String(repeating: "*", count: writeKey.count - 4) + writeKey.suffix(4)
    }

    /// One line per field.
    public var description: String {
        var lines = [
            "lifecycle: \(lifecycle)", "queueLength: \(queueLength)", "writeKey: \(writeKey)",
            "ingestionHost: \(ingestionHost)", "flushIntervalSeconds: \(flushIntervalSeconds)",
            "maxQueueEvents: \(maxQueueEvents)", "maxDiskEvents: \(maxDiskEvents)",
            "circuitState: \(circuitState)", "circuitRemainingMs: \(circuitRemainingMs)",
            "flushInFlight: \(flushInFlight)", "tracing: \(tracing)",
            "sent: \(stats.sent)", "dropped: \(stats.droppedTotal)",
        ]
        if let anonymousId { lines.append("anonymousId: \(anonymousId)") }
        if let userId { lines.append("userId: \(userId)") }
        if let groupId { lines.append("groupId: \(groupId)") }
        if let advertisingId { lines.append("advertisingId: \(advertisingId)") }
        if let error { lines.append("error: \(error)") }
        return lines.joined(separator: "\n")
    }
}
