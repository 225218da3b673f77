import Foundation
import MetaRouter

/// One event of a ``DeliveryBatch`` as this SDK's wire format writes it (Segment's spec), read
/// the way the vendor formats need it: the call, the ids, the time and the payloads.
public struct WireEvent: Sendable {
    /// The event as it came.
    public let json: JSON

    /// Reads `json`.
    ///
    /// - Parameter json: One event of a batch.
    public init(_ json: JSON) { self.json = json }

    /// `track`, `identify`, `screen`, `page`, `group` or `alias`.
    public var type: String { json["type"]?.stringValue ?? "track" }
    /// The SDK's message id, `<epochMillis>-<UUID>`.
    public var messageId: String { json["messageId"]?.stringValue ?? "" }
    /// The user id, when there is one.
    public var userId: String? { json["userId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
    /// The anonymous (device) id.
    public var anonymousId: String? { json["anonymousId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
    /// The user id, else the anonymous id: who did it.
    public var distinctId: String { userId ?? anonymousId ?? "" }
    /// The group id (a group call's, or the current group on every event).
    public var groupId: String? { json["groupId"]?.stringValue }
    /// The id before an alias.
    public var previousId: String? { json["previousId"]?.stringValue }
    /// A track's event name, a screen's or page's name.
    public var name: String { json["event"]?.stringValue ?? json["name"]?.stringValue ?? "" }
    /// A track's, screen's or page's properties (empty when none).
    public var properties: [String: JSON] { json["properties"]?.objectValue ?? [:] }
    /// An identify's or group's traits (empty when none).
    public var traits: [String: JSON] { json["traits"]?.objectValue ?? [:] }
    /// The event's context (empty when none).
    public var context: [String: JSON] { json["context"]?.objectValue ?? [:] }
    /// When the call happened (the batch's time when the event has no readable timestamp).
    public var date: Date { json["timestamp"]?.timestampValue ?? json["sentAt"]?.timestampValue ?? Date() }
    /// When the call happened, in milliseconds since 1970.
    public var epochMillis: Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    /// The wire timestamp as it came (ISO 8601 with milliseconds).
    public var timestamp: JSON { json["timestamp"] ?? JSON(timestamp: date) }

    /// A UUID derived from the message id, the same for every retry and restart: its UUID part
    /// when it has one (`<epochMillis>-<UUID>`), else a stable hash of the whole id. Mixpanel's
    /// `$insert_id` (at most 36 characters) and PostHog's `uuid` (a UUID) come from it.
    public var dedupUUID: String {
        if let dash = messageId.firstIndex(of: "-"), let uuid = UUID(uuidString: String(messageId[messageId.index(after: dash)...])) {
            return uuid.uuidString.lowercased()
        }
        if let uuid = UUID(uuidString: messageId) { return uuid.uuidString.lowercased() }
        // FNV-1a over the bytes, twice with different seeds: 128 stable bits as a version-8 UUID.
        func fnv(_ seed: UInt64) -> UInt64 {
            messageId.utf8.reduce(seed) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
        var bytes = withUnsafeBytes(of: fnv(0xcbf2_9ce4_8422_2325).bigEndian, Array.init) + withUnsafeBytes(of: fnv(0x84222325cbf29ce4).bigEndian, Array.init)
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }

    /// The value at a path of `context`, e.g. `context("os", "name")`.
    ///
    /// - Parameter path: Keys from `context` down.
    /// - Returns: The value, or `nil` when the path leads nowhere.
    public func context(_ path: String...) -> JSON? {
        var value: JSON? = .object(context)
        for key in path { value = value?[key] }
        return value
    }
}

/// Why a batch maps to no request: every event in it is a call the vendor's endpoint has no
/// counterpart for (an Amplitude alias, a Mixpanel group). The engine drops the batch, counted
/// `rejected`, and logs this.
public struct NothingToSend: Error, CustomStringConvertible {
    /// The calls left out.
    public let types: [String]
    /// What the log says.
    public var description: String { "no event this vendor takes (calls: \(types.joined(separator: ", ")))" }
}

/// Encodes a body with the SDK's own writer (`JSON.description`: compact, keys sorted,
/// integers kept), about ten times cheaper than `JSONEncoder` on the executor.
///
/// - Parameter json: The body.
/// - Returns: Its bytes.
func encodeBody(_ json: JSON) throws -> Data {
    Data(json.description.utf8)
}

extension Dictionary where Key == String, Value == JSON {
    /// Adds `value` at `key` when it is not `nil`.
    mutating func set(_ key: String, _ value: JSON?) {
        if let value { self[key] = value }
    }
}
