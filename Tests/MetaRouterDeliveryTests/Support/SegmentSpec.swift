import Foundation
import MetaRouterCore

/// The Segment Spec, as Segment publishes it (segmentio/segment-docs, `src/connections/spec/`:
/// `common.md` and the includes it names, `track.md`, `identify.md`, `page.md`, `screen.md`,
/// `group.md`, `alias.md`), written down as checks on one event of a batch. `violations` are
/// breaches of what the Spec requires; `outsideTheSpec` lists the fields the Spec does not
/// define (Segment ignores them), for the test to compare with the choices
/// `Docs/WireFormat.md` lists.
enum SegmentSpec {
    /// Common fields every call may carry (common.md, "Structure").
    static let commonFields: Set<String> = [
        "anonymousId", "context", "integrations", "messageId", "receivedAt", "sentAt", "timestamp", "type", "userId", "version",
    ]
    /// Fields each call adds (track.md, identify.md, page.md, screen.md, group.md, alias.md).
    static let typeFields: [String: Set<String>] = [
        "track": ["event", "properties"], "identify": ["traits"], "page": ["name", "category", "properties"],
        "screen": ["name", "category", "properties"], "group": ["groupId", "traits"], "alias": ["previousId"],
    ]
    /// Context's fields and the types the Spec gives them (common.md, "Context").
    static let contextFields: [String: Kind] = [
        "active": .bool, "app": .object, "campaign": .object, "device": .object, "ip": .string, "library": .object,
        "locale": .string, "location": .object, "network": .object, "os": .object, "page": .object, "referrer": .object,
        "screen": .object, "timezone": .string, "groupId": .string, "traits": .object, "userAgent": .string,
    ]
    /// The members of context's objects that the Spec names, with their types.
    static let contextMembers: [String: [String: Kind]] = [
        "app": ["name": .string, "version": .string, "build": .string, "namespace": .string],
        "device": [
            "id": .string, "advertisingId": .string, "adTrackingEnabled": .bool, "manufacturer": .string, "model": .string,
            "name": .string, "type": .string, "version": .string, "token": .string,
        ],
        "library": ["name": .string, "version": .string],
        "os": ["name": .string, "version": .string],
        "screen": ["density": .number, "height": .number, "width": .number],
    ]

    enum Kind { case string, bool, number, object }

    /// What the event breaks: a required field missing, or a field of the wrong type.
    static func violations(of event: JSON) -> [String] {
        var problems: [String] = []
        func require(_ condition: Bool, _ message: String) { if !condition { problems.append(message) } }
        let type = event["type"]?.stringValue ?? ""
        require(typeFields[type] != nil, "type \(event["type"].map(JSONWriter.string) ?? "missing") is not a Spec call")
        require(!(event["messageId"]?.stringValue ?? "").isEmpty, "messageId must be a non-empty string")
        // "A userId or an anonymousId is required" (spec-field-anonymous-id).
        let ids = [event["userId"], event["anonymousId"]].compactMap { $0 }
        require(ids.contains { !($0.stringValue ?? "").isEmpty }, "a userId or an anonymousId is required")
        require(ids.allSatisfy { $0.stringValue != nil }, "userId and anonymousId are strings")
        // "All timestamps are ISO-8601 date strings" (common.md, "Timestamps").
        for field in ["timestamp", "sentAt"] {
            require(event[field].flatMap(\.stringValue).map(isISO8601) ?? false, "\(field) must be an ISO-8601 string")
        }
        if let integrations = event["integrations"] {
            let values = integrations.objectValue.map { Array($0.values) } ?? []
            require(integrations.objectValue != nil && values.allSatisfy { $0.boolValue != nil || $0.objectValue != nil },
                    "integrations maps destination names to a Boolean or an options object")
        }
        problems += contextViolations(event["context"])
        switch type {
        case "track":
            require(!(event["event"]?.stringValue ?? "").isEmpty, "track needs an event name")
        case "group":
            require(!(event["groupId"]?.stringValue ?? "").isEmpty, "group needs a groupId")
        case "alias":
            require(!(event["userId"]?.stringValue ?? "").isEmpty, "alias needs the new userId")
            require(event["previousId"].map { $0.stringValue != nil } ?? true, "previousId is a string")
        case "page", "screen":
            require(event["name"].map { $0.stringValue != nil } ?? true, "\(type) name is a string")
            for reserved in ["name", "path", "referrer", "search", "title", "url"] {
                require(event["properties"]?[reserved].map { $0.stringValue != nil } ?? true, "\(type) properties.\(reserved) is a string")
            }
        default:
            break
        }
        for field in ["properties", "traits"] {
            require(event[field].map { $0.objectValue != nil } ?? true, "\(field) is an object")
        }
        return problems
    }

    /// The fields of `event` (top level and context, dotted) that the Spec does not define.
    static func outsideTheSpec(_ event: JSON) -> Set<String> {
        let allowed = commonFields.union(typeFields[event["type"]?.stringValue ?? ""] ?? [])
        var outside = Set((event.objectValue ?? [:]).keys.filter { !allowed.contains($0) })
        for (key, value) in event["context"]?.objectValue ?? [:] {
            guard contextFields[key] != nil else {
                outside.insert("context.\(key)")
                continue
            }
            for member in (value.objectValue ?? [:]).keys where contextMembers[key].map({ $0[member] == nil }) ?? false {
                outside.insert("context.\(key).\(member)")
            }
        }
        return outside
    }

    private static func contextViolations(_ context: JSON?) -> [String] {
        guard let context else { return [] }
        guard let fields = context.objectValue else { return ["context is an object"] }
        var problems: [String] = []
        // "Other libraries only collect context.library" (common.md): every library sends it.
        if fields["library"]?["name"]?.stringValue == nil || fields["library"]?["version"]?.stringValue == nil {
            problems.append("context.library needs a name and a version")
        }
        for (key, value) in fields {
            if let kind = contextFields[key], !matches(value, kind) { problems.append("context.\(key) has the wrong type") }
            for (member, kind) in contextMembers[key] ?? [:] {
                if let inner = value[member], !matches(inner, kind) { problems.append("context.\(key).\(member) has the wrong type") }
            }
        }
        return problems
    }

    private static func matches(_ value: JSON, _ kind: Kind) -> Bool {
        switch kind {
        case .string: value.stringValue != nil
        case .bool: value.boolValue != nil
        case .number: value.doubleValue != nil
        case .object: value.objectValue != nil
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, with a real date in it.
    static func isISO8601(_ text: String) -> Bool {
        let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$"#
        guard text.range(of: pattern, options: .regularExpression) != nil else { return false }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text) != nil
    }
}
