import Foundation

extension Event {
    /// The event as it goes on the wire (see `Docs/WireFormat.md`). Absent optional fields are
    /// left out; `context` is always present.
    ///
    /// - Returns: The event as the wire format's JSON object.
    public func jsonObject() -> [String: JSON] {
        // Room for every field at once, and only the fields present inserted: a destination's
        // format gets one of these per event.
        var object = [String: JSON](minimumCapacity: 15)
        object["type"] = .string(type.rawValue)
        object["messageId"] = .string(messageId)
        object["timestamp"] = .string(Timestamp.string(from: timestamp))
        object["context"] = .object(context)
        if let anonymousId { object["anonymousId"] = .string(anonymousId) }
        if let userId { object["userId"] = .string(userId) }
        if let groupId { object["groupId"] = .string(groupId) }
        if let previousId { object["previousId"] = .string(previousId) }
        if let event { object["event"] = .string(event) }
        if let name { object["name"] = .string(name) }
        if let properties { object["properties"] = .object(properties) }
        if let traits { object["traits"] = .object(traits) }
        if let integrations { object["integrations"] = .object(integrations) }
        if let sentAt { object["sentAt"] = .string(Timestamp.string(from: sentAt)) }
        if let writeKey { object["writeKey"] = .string(writeKey) }
        return object
    }

    /// The compact, key-sorted JSON bytes of ``jsonObject()``, written field by field without
    /// building the intermediate object (this runs once per delivered event). `encodingContext`
    /// may supply the context's bytes, e.g. from a cache.
    package func jsonBytes(encodingContext: (([String: JSON]) -> [UInt8])? = nil) -> [UInt8] {
        jsonBytes(writeKey: writeKey, sentAt: sentAt, encodingContext: encodingContext)
    }

    /// The same with `writeKey` and `sentAt` in place of the event's own, so that a destination
    /// stamping its write key does not copy the event to do it.
    package func jsonBytes(writeKey: String?, sentAt: Date?, encodingContext: (([String: JSON]) -> [UInt8])?) -> [UInt8] {
        ByteWriter.bytes(estimate: 1024) { out in
            out.append(UInt8(ascii: "{"))
            // Keys in byte order, matching JSONWriter's sorting of objects. `context` is always
            // present: every field after it starts with a comma.
            if let anonymousId {
                out.append("\"anonymousId\":")
                JSONWriter.writeString(anonymousId, into: &out)
                out.append(UInt8(ascii: ","))
            }
            out.append("\"context\":")
            if let encodingContext {
                out.append(encodingContext(context))
            } else {
                JSONWriter.writeObject(context, into: &out)
            }
            Self.text(",\"event\":", event, &out)
            Self.text(",\"groupId\":", groupId, &out)
            Self.object(",\"integrations\":", integrations, &out)
            Self.text(",\"messageId\":", messageId, &out)
            Self.text(",\"name\":", name, &out)
            Self.text(",\"previousId\":", previousId, &out)
            Self.object(",\"properties\":", properties, &out)
            Self.stamp(",\"sentAt\":", sentAt, &out)
            Self.stamp(",\"timestamp\":", timestamp, &out)
            Self.object(",\"traits\":", traits, &out)
            Self.text(",\"type\":", type.rawValue, &out)
            Self.text(",\"userId\":", userId, &out)
            Self.text(",\"writeKey\":", writeKey, &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func text(_ key: StaticString, _ value: String?, _ out: inout ByteWriter) {
        guard let value else { return }
        out.append(key)
        JSONWriter.writeString(value, into: &out)
    }

    private static func object(_ key: StaticString, _ value: [String: JSON]?, _ out: inout ByteWriter) {
        guard let value else { return }
        out.append(key)
        JSONWriter.writeObject(value, into: &out)
    }

    private static func stamp(_ key: StaticString, _ date: Date?, _ out: inout ByteWriter) {
        guard let date else { return }
        out.append(key)
        out.append(UInt8(ascii: "\""))
        Timestamp.append(date, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Reads an event back from its wire form; `nil` when a required field is missing or
    /// malformed.
    ///
    /// - Parameter json: An event in the wire format.
    public init?(json: JSON) {
        guard let object = json.objectValue,
            let typeName = object["type"]?.stringValue, let type = EventType(rawValue: typeName),
            let messageId = object["messageId"]?.stringValue,
            let stamp = object["timestamp"]?.stringValue, let timestamp = Timestamp.date(from: stamp)
        else { return nil }
        self.init(
            type: type,
            messageId: messageId,
            timestamp: timestamp,
            anonymousId: object["anonymousId"]?.stringValue,
            userId: object["userId"]?.stringValue,
            groupId: object["groupId"]?.stringValue,
            previousId: object["previousId"]?.stringValue,
            event: object["event"]?.stringValue,
            name: object["name"]?.stringValue,
            properties: object["properties"]?.objectValue,
            traits: object["traits"]?.objectValue,
            context: object["context"]?.objectValue ?? [:],
            integrations: object["integrations"]?.objectValue
        )
        sentAt = object["sentAt"]?.stringValue.flatMap(Timestamp.date(from:))
        writeKey = object["writeKey"]?.stringValue
    }
}
