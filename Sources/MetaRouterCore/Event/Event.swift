import Foundation

/// One analytics event of any type. The common fields are shared; the per-type fields
/// (`event` for track, `name` for screen/page, `traits`, `previousId`) are set only where
/// that type uses them.
///
/// Plugins receive and return `Event` values; the wire form is ``jsonObject()``.
public struct Event: Sendable, Hashable {
    /// track, identify, screen, page, group or alias.
    public var type: EventType
    /// `<epochMillis>-<UUID>`, unique per call.
    public var messageId: String
    /// When the call was made (or the caller's own timestamp).
    public var timestamp: Date
    /// The device's anonymous identity; filled by the identity plugin unless given per call.
    public var anonymousId: String?
    /// The known user; filled by the identity plugin unless given per call.
    public var userId: String?
    /// The current group; set by `group` and carried on later events.
    public var groupId: String?
    /// alias: the identity being linked to the new userId.
    public var previousId: String?
    /// track: the event name.
    public var event: String?
    /// screen / page: the name.
    public var name: String?
    /// track / screen / page: the properties.
    public var properties: [String: JSON]?
    /// identify / group: the traits.
    public var traits: [String: JSON]?
    /// app, device, os, library, locale, …; per-call context is merged over the plugins'.
    public var context: [String: JSON]
    /// Per-destination switches, only when the caller gives them.
    public var integrations: [String: JSON]?
    /// When the batch carrying this event was assembled; set by the delivering destination.
    public var sentAt: Date?
    /// The write key, set by the delivering destination.
    public var writeKey: String?

    /// Creates an event stamped with `timestamp` and a fresh ``MessageID``.
    public init(
        type: EventType,
        messageId: String? = nil,
        timestamp: Date = Date(),
        anonymousId: String? = nil,
        userId: String? = nil,
        groupId: String? = nil,
        previousId: String? = nil,
        event: String? = nil,
        name: String? = nil,
        properties: [String: JSON]? = nil,
        traits: [String: JSON]? = nil,
        context: [String: JSON] = [:],
        integrations: [String: JSON]? = nil
    ) {
        self.type = type
        self.messageId = messageId ?? MessageID.make(at: timestamp)
        self.timestamp = timestamp
        self.anonymousId = anonymousId
        self.userId = userId
        self.groupId = groupId
        self.previousId = previousId
        self.event = event
        self.name = name
        self.properties = properties
        self.traits = traits
        self.context = context
        self.integrations = integrations
    }
}

/// Message identifiers in MetaRouter's format, `<epochMillis>-<UUID>`.
package enum MessageID {
    /// A new identifier for a call made at `date`.
    package static func make(at date: Date) -> String {
        // Built in place: digits, a dash and the UUID in one string (no interpolation, no
        // intermediate strings; this runs on the caller's thread for every call).
        let millis = Timestamp.epochMillis(date)
        return String(unsafeUninitializedCapacity: 64) { buffer in
            var position = 0
            if millis < 0 {
                buffer[0] = UInt8(ascii: "-")
                position = 1
            }
            var magnitude = millis.magnitude
            var digits = 0
            repeat {
                digits += 1
                magnitude /= 10
            } while magnitude > 0
            magnitude = millis.magnitude
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                buffer[position + offset] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            position += digits
            buffer[position] = UInt8(ascii: "-")
            return RandomIdentifier.writeUUID(into: buffer, at: position + 1)
        }
    }
}
