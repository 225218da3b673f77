import Foundation
import MetaRouter

/// Checks a batch and says what is wrong, field by field. An empty list means the batch is
/// valid. Two sets of rules:
///
/// - ``Rules/segmentSpec``: what the Segment Spec requires of any SDK — a known `type`, a
///   `userId` or `anonymousId`, each type's own fields (`event`, `groupId`, `previousId`),
///   timestamps in ISO 8601 where present, objects where objects belong. The inspector judges
///   every SDK by these.
/// - ``Rules/metaRouter``: those and what this SDK's wire format promises besides
///   (`Docs/WireFormat.md`): `writeKey`, `messageId` as `<epochMillis>-<uuid>`, `timestamp`
///   and `sentAt` on every event, a `context` object, nothing else in the envelope. The
///   collector and the demo hold this SDK to them.
public enum WireValidator {
    /// Which rules to check.
    public enum Rules: Sendable {
        /// The Segment Spec's requirements.
        case segmentSpec
        /// The Segment Spec's and this SDK's wire format.
        case metaRouter
    }

    private static let knownTypes = Set(EventType.allCases.map(\.rawValue))
    /// Envelope fields the Segment HTTP API takes beside `batch`.
    private static let segmentEnvelope: Set<String> = ["batch", "sentAt", "writeKey", "context", "integrations", "metadata"]

    /// The problems of a request body, each naming the event index and field.
    public static func problems(inBody body: [UInt8], rules: Rules = .metaRouter) -> [String] {
        guard let json = try? JSONText.parse(body) else { return ["body is not JSON"] }
        return problems(in: json, rules: rules)
    }

    /// The problems of a parsed request body.
    public static func problems(in json: JSON, rules: Rules) -> [String] {
        guard let object = json.objectValue else { return ["body is not a JSON object"] }
        guard let batch = object["batch"]?.arrayValue else { return ["body has no \"batch\" array"] }
        let allowed = rules == .metaRouter ? ["batch"] : segmentEnvelope
        var problems = object.keys.filter { !allowed.contains($0) }.sorted().map { "unexpected envelope field \"\($0)\"" }
        if rules == .segmentSpec, let sentAt = object["sentAt"], sentAt.stringValue.flatMap({ JSON.string($0).timestampValue }) == nil {
            problems.append("sentAt is not an ISO-8601 timestamp")
        }
        for (index, event) in batch.enumerated() {
            problems += self.problems(inEvent: event, rules: rules).map { "event \(index): \($0)" }
        }
        return problems
    }

    /// The problems of one event.
    public static func problems(inEvent event: JSON, rules: Rules = .metaRouter) -> [String] {
        guard let fields = event.objectValue else { return ["not an object"] }
        var problems: [String] = []
        func requireString(_ name: String) {
            switch fields[name] {
            case .string(let text)? where !text.isEmpty: break
            case nil: problems.append("missing \(name)")
            default: problems.append("\(name) must be a non-empty string")
            }
        }
        func optionalTimestamp(_ name: String) {
            guard let value = fields[name] else { return }
            guard let text = value.stringValue, !text.isEmpty else { return problems.append("\(name) must be a non-empty string") }
            if JSON.string(text).timestampValue == nil { problems.append("\(name) \"\(text)\" is not an ISO-8601 timestamp") }
        }
        func optionalObject(_ name: String) {
            if let value = fields[name], value.objectValue == nil { problems.append("\(name) must be an object") }
        }
        func optionalString(_ name: String) {
            if let value = fields[name], value.stringValue == nil { problems.append("\(name) must be a string") }
        }
        requireString("type")
        if rules == .metaRouter {
            requireString("messageId")
            requireString("writeKey")
            if fields["timestamp"] == nil { problems.append("missing timestamp") }
            if fields["sentAt"] == nil { problems.append("missing sentAt") }
            if let messageId = fields["messageId"]?.stringValue, messageId.split(separator: "-", maxSplits: 1).first.flatMap({ Int64($0) }) == nil {
                problems.append("messageId \"\(messageId)\" is not <epochMillis>-<uuid>")
            }
            if fields["context"]?.objectValue == nil { problems.append("missing context object") }
        } else {
            optionalString("messageId")
        }
        for name in ["timestamp", "sentAt", "originalTimestamp"] { optionalTimestamp(name) }
        if fields["anonymousId"] == nil && fields["userId"] == nil { problems.append("needs anonymousId or userId") }
        for name in ["context", "properties", "traits", "integrations"] { optionalObject(name) }
        guard let type = fields["type"]?.stringValue else { return problems }
        switch type {
        case "track": requireString("event")
        case "screen", "page": if rules == .metaRouter { requireString("name") } else { optionalString("name") }
        case "group": requireString("groupId")
        case "alias":
            requireString("userId")
            requireString("previousId")
        case "identify":
            if fields["userId"] == nil && fields["traits"] == nil { problems.append("identify needs userId or traits") }
        default:
            if !knownTypes.contains(type) { problems.append("unknown type \"\(type)\"") }
        }
        return problems
    }
}
