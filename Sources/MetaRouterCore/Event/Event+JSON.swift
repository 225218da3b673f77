import Foundation

extension Event {
    /// The event as it goes on the wire (see `Docs/WireFormat.md`). Absent optional fields are
    /// left out; `context` is always present.
    public func jsonObject() -> [String: JSON] {
        var object: [String: JSON] = [
            "type": .string(type.rawValue),
            "messageId": .string(messageId),
            "timestamp": .string(Timestamp.string(from: timestamp)),
            "context": .object(context),
        ]
        object["anonymousId"] = anonymousId.map(JSON.string)
        object["userId"] = userId.map(JSON.string)
        object["groupId"] = groupId.map(JSON.string)
        object["previousId"] = previousId.map(JSON.string)
        object["event"] = event.map(JSON.string)
        object["name"] = name.map(JSON.string)
        object["properties"] = properties.map(JSON.object)
        object["traits"] = traits.map(JSON.object)
        object["integrations"] = integrations.map(JSON.object)
        object["sentAt"] = sentAt.map { .string(Timestamp.string(from: $0)) }
        object["writeKey"] = writeKey.map(JSON.string)
        return object
    }

    /// The compact, key-sorted JSON bytes of ``jsonObject()``, written field by field without
    /// building the intermediate object (this runs once per delivered event). `encodingContext`
    /// may supply the context's bytes, e.g. from a cache.
    public func jsonBytes(encodingContext: (([String: JSON]) -> [UInt8])? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        var first = true
        func field(_ name: StaticString, _ write: (inout [UInt8]) -> Void) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
            write(&out)
        }
        func text(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            field(name) { JSONWriter.writeString(value, into: &$0) }
        }
        func object(_ name: StaticString, _ value: [String: JSON]?) {
            guard let value else { return }
            field(name) { JSONWriter.writeObject(value, into: &$0) }
        }
        // Keys in byte order, matching JSONWriter's sorting of objects.
        text("anonymousId", anonymousId)
        if let encodingContext {
            field("context") { $0.append(contentsOf: encodingContext(context)) }
        } else {
            object("context", context)
        }
        text("event", event)
        text("groupId", groupId)
        object("integrations", integrations)
        text("messageId", messageId)
        text("name", name)
        text("previousId", previousId)
        object("properties", properties)
        func stamp(_ name: StaticString, _ date: Date?) {
            guard let date else { return }
            field(name) {
                $0.append(UInt8(ascii: "\""))
                Timestamp.append(date, to: &$0)
                $0.append(UInt8(ascii: "\""))
            }
        }
        stamp("sentAt", sentAt)
        stamp("timestamp", timestamp)
        object("traits", traits)
        text("type", type.rawValue)
        text("userId", userId)
        text("writeKey", writeKey)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Reads an event back from its wire form; `nil` when a required field is missing or
    /// malformed.
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
