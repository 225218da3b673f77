import Foundation

/// One analytics event of any type. The common fields are shared; the per-type fields
/// (`event` for track, `name` for screen/page, `traits`, `previousId`) are set only where
/// that type uses them.
///
/// Plugins receive and return `Event` values; the wire form is ``jsonObject()``.
///
/// An `Event` is one reference to its fields, copied on write (as `Array` is): handing an event
/// from stage to stage, to a rule or into a queue costs one retain, not a copy of fifteen fields,
/// and editing a dictionary field of an event nobody else holds happens in place. Two events
/// are equal when every field is; `dump`, debuggers and test failures show the fields.
public struct Event: Sendable, Equatable, CustomReflectable {
    /// The fields, shared by copies. The accessors below are inlinable, so plugins and rules in
    /// other modules read a field without a call (6 % of a 20-rule set); everything still reads
    /// and writes through them, and a write copies the storage first when it is shared.
    @usableFromInline var storage: EventStorage

    /// Creates an event stamped with `timestamp` and a fresh messageId (epoch milliseconds and a UUID).
    ///
    /// - Parameters:
    ///   - type: The call it records.
    ///   - messageId: Its id (a fresh one unless given).
    ///   - timestamp: When it happened (now unless given).
    ///   - anonymousId: The visitor's id.
    ///   - userId: The user's id.
    ///   - groupId: The group's id (group calls).
    ///   - previousId: The previous id (alias calls).
    ///   - event: The action's name (track calls).
    ///   - name: The screen's or page's name.
    ///   - properties: Its properties.
    ///   - traits: Its traits (identify and group calls).
    ///   - context: Its context.
    ///   - integrations: Which destinations receive it.
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
    @inlinable public var type: EventType {
        get { storage.fields.type }
        set { unique(); storage.fields.type = newValue }
    }
    /// `<epochMillis>-<UUID>`, unique per call.
    @inlinable public var messageId: String {
        get { storage.fields.messageId }
        set { unique(); storage.fields.messageId = newValue }
    }
    /// When the call was made (or the caller's own timestamp).
    @inlinable public var timestamp: Date {
        get { storage.fields.timestamp }
        set { unique(); storage.fields.timestamp = newValue }
    }
    /// The device's anonymous identity; filled by the identity plugin unless given per call.
    @inlinable public var anonymousId: String? {
        get { storage.fields.anonymousId }
        set { unique(); storage.fields.anonymousId = newValue }
    }
    /// The known user; filled by the identity plugin unless given per call.
    @inlinable public var userId: String? {
        get { storage.fields.userId }
        set { unique(); storage.fields.userId = newValue }
    }
    /// The current group; set by `group` and carried on later events.
    @inlinable public var groupId: String? {
        get { storage.fields.groupId }
        set { unique(); storage.fields.groupId = newValue }
    }
    /// alias: the identity being linked to the new userId.
    @inlinable public var previousId: String? {
        get { storage.fields.previousId }
        set { unique(); storage.fields.previousId = newValue }
    }
    /// track: the event name.
    @inlinable public var event: String? {
        get { storage.fields.event }
        set { unique(); storage.fields.event = newValue }
    }
    /// screen / page: the name.
    @inlinable public var name: String? {
        get { storage.fields.name }
        set { unique(); storage.fields.name = newValue }
    }
    /// track / screen / page: the properties.
    @inlinable public var properties: [String: JSON]? {
        get { storage.fields.properties }
        _modify {
            unique()
            yield &storage.fields.properties
        }
    }
    /// identify / group: the traits.
    @inlinable public var traits: [String: JSON]? {
        get { storage.fields.traits }
        _modify {
            unique()
            yield &storage.fields.traits
        }
    }
    /// app, device, os, library, locale, …; per-call context is merged over the plugins'.
    @inlinable public var context: [String: JSON] {
        get { storage.fields.context }
        _modify {
            unique()
            yield &storage.fields.context
        }
    }
    /// Per-destination switches, only when the caller gives them.
    @inlinable public var integrations: [String: JSON]? {
        get { storage.fields.integrations }
        _modify {
            unique()
            yield &storage.fields.integrations
        }
    }
    /// When the batch carrying this event was assembled; set by the delivering destination.
    @inlinable public var sentAt: Date? {
        get { storage.fields.sentAt }
        set { unique(); storage.fields.sentAt = newValue }
    }
    /// The write key, set by the delivering destination.
    @inlinable public var writeKey: String? {
        get { storage.fields.writeKey }
        set { unique(); storage.fields.writeKey = newValue }
    }

    public static func == (lhs: Event, rhs: Event) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public var customMirror: Mirror { Mirror(reflecting: storage.fields) }

    /// Values the call gave that could not be sent and were dropped (reported as input
    /// problems), by key path (`properties.total`), with why. Kept beside the event, never sent
    /// nor compared: it lets a check downstream (the tracking plan's `required`) name the real
    /// reason a value is missing.
    package var droppedAtCall: [String: String] {
        get { storage.droppedAtCall ?? [:] }
        set {
            unique()
            storage.droppedAtCall = newValue.isEmpty ? nil : newValue
        }
    }

    /// Gives this value storage of its own before a write, when it shares it.
    @usableFromInline mutating func unique() {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        let copy = EventStorage(fields: storage.fields)
        copy.droppedAtCall = storage.droppedAtCall
        storage = copy
    }
}

/// The fields of an ``Event``, stored once and shared by its copies.
@usableFromInline struct EventFields: Sendable, Hashable {
    @usableFromInline var type: EventType
    @usableFromInline var messageId: String
    @usableFromInline var timestamp: Date
    @usableFromInline var anonymousId: String?
    @usableFromInline var userId: String?
    @usableFromInline var groupId: String?
    @usableFromInline var previousId: String?
    @usableFromInline var event: String?
    @usableFromInline var name: String?
    @usableFromInline var properties: [String: JSON]?
    @usableFromInline var traits: [String: JSON]?
    @usableFromInline var context: [String: JSON]
    @usableFromInline var integrations: [String: JSON]?
    @usableFromInline var sentAt: Date? = nil
    @usableFromInline var writeKey: String? = nil
}

/// The shared box of an event's fields.
@usableFromInline final class EventStorage: @unchecked Sendable {  // written only through an `Event` that holds the sole reference (copy on write), so never written while shared
    @exclusivity(unchecked) @usableFromInline var fields: EventFields
    /// ``Event/droppedAtCall``; `nil` for the common event that dropped nothing.
    var droppedAtCall: [String: String]?

    @usableFromInline init(fields: EventFields) { self.fields = fields }
}
