import Foundation

/// One analytics event of any type. The common fields are shared; the per-type fields
/// (`event` for track, `name` for screen/page, `traits`, `previousId`) are set only where
/// that type uses them.
///
/// Plugins receive and return `Event` values; the wire form is ``jsonObject()``.
///
/// An `Event` is one reference to its fields, copied on write (as `Array` is): handing an event
/// from stage to stage, to a rule or into a queue costs one retain, not a copy of fifteen fields,
/// and editing a dictionary field of an event nobody else holds happens in place.
public struct Event: Sendable, Hashable, CustomReflectable {
    private var storage: EventStorage

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
        storage = EventStorage(fields: EventFields(
            type: type, messageId: messageId ?? MessageID.make(at: timestamp), timestamp: timestamp,
            anonymousId: anonymousId, userId: userId, groupId: groupId, previousId: previousId,
            event: event, name: name, properties: properties, traits: traits, context: context,
            integrations: integrations))
    }

    /// track, identify, screen, page, group or alias.
    public var type: EventType {
        get { storage.fields.type }
        set { unique(); storage.fields.type = newValue }
    }
    /// `<epochMillis>-<UUID>`, unique per call.
    public var messageId: String {
        get { storage.fields.messageId }
        set { unique(); storage.fields.messageId = newValue }
    }
    /// When the call was made (or the caller's own timestamp).
    public var timestamp: Date {
        get { storage.fields.timestamp }
        set { unique(); storage.fields.timestamp = newValue }
    }
    /// The device's anonymous identity; filled by the identity plugin unless given per call.
    public var anonymousId: String? {
        get { storage.fields.anonymousId }
        set { unique(); storage.fields.anonymousId = newValue }
    }
    /// The known user; filled by the identity plugin unless given per call.
    public var userId: String? {
        get { storage.fields.userId }
        set { unique(); storage.fields.userId = newValue }
    }
    /// The current group; set by `group` and carried on later events.
    public var groupId: String? {
        get { storage.fields.groupId }
        set { unique(); storage.fields.groupId = newValue }
    }
    /// alias: the identity being linked to the new userId.
    public var previousId: String? {
        get { storage.fields.previousId }
        set { unique(); storage.fields.previousId = newValue }
    }
    /// track: the event name.
    public var event: String? {
        get { storage.fields.event }
        set { unique(); storage.fields.event = newValue }
    }
    /// screen / page: the name.
    public var name: String? {
        get { storage.fields.name }
        set { unique(); storage.fields.name = newValue }
    }
    /// track / screen / page: the properties.
    public var properties: [String: JSON]? {
        get { storage.fields.properties }
        _modify {
            unique()
            yield &storage.fields.properties
        }
    }
    /// identify / group: the traits.
    public var traits: [String: JSON]? {
        get { storage.fields.traits }
        _modify {
            unique()
            yield &storage.fields.traits
        }
    }
    /// app, device, os, library, locale, …; per-call context is merged over the plugins'.
    public var context: [String: JSON] {
        get { storage.fields.context }
        _modify {
            unique()
            yield &storage.fields.context
        }
    }
    /// Per-destination switches, only when the caller gives them.
    public var integrations: [String: JSON]? {
        get { storage.fields.integrations }
        _modify {
            unique()
            yield &storage.fields.integrations
        }
    }
    /// When the batch carrying this event was assembled; set by the delivering destination.
    public var sentAt: Date? {
        get { storage.fields.sentAt }
        set { unique(); storage.fields.sentAt = newValue }
    }
    /// The write key, set by the delivering destination.
    public var writeKey: String? {
        get { storage.fields.writeKey }
        set { unique(); storage.fields.writeKey = newValue }
    }

    /// Events are equal when every field is.
    public static func == (lhs: Event, rhs: Event) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.fields) }

    /// The fields, for `dump`, debuggers and test failure messages.
    public var customMirror: Mirror { Mirror(reflecting: storage.fields) }

    /// Gives this value storage of its own before a write, when it shares it.
    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) { storage = EventStorage(fields: storage.fields) }
    }
}

/// The fields of an ``Event``, stored once and shared by its copies.
struct EventFields: Sendable, Hashable {
    var type: EventType
    var messageId: String
    var timestamp: Date
    var anonymousId: String?
    var userId: String?
    var groupId: String?
    var previousId: String?
    var event: String?
    var name: String?
    var properties: [String: JSON]?
    var traits: [String: JSON]?
    var context: [String: JSON]
    var integrations: [String: JSON]?
    var sentAt: Date? = nil
    var writeKey: String? = nil
}

/// The shared box of an event's fields.
final class EventStorage: @unchecked Sendable {  // written only through an `Event` that holds the sole reference (copy on write), so never written while shared
    @exclusivity(unchecked) var fields: EventFields

    init(fields: EventFields) { self.fields = fields }
}
