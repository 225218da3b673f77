import Foundation
import MetaRouter

/// Checks a batch against the wire format (`Docs/WireFormat.md`) and says what is wrong,
/// field by field. An empty list means the batch is valid.
public enum WireValidator {
    private static let knownTypes = Set(EventType.allCases.map(\.rawValue))

    /// The problems of a request body, each naming the event index and field.
    public static func problems(inBody body: [UInt8]) -> [String] {
        guard let json = try? JSONParser.parse(body) else { return ["body is not JSON"] }
        guard let object = json.objectValue else { return ["body is not a JSON object"] }
        guard let batch = object["batch"]?.arrayValue else { return ["body has no \"batch\" array"] }
        var problems = object.keys.filter { $0 != "batch" }.sorted().map { "unexpected envelope field \"\($0)\"" }
        for (index, event) in batch.enumerated() {
            problems += self.problems(inEvent: event).map { "event \(index): \($0)" }
        }
        return problems
    }

    /// The problems of one event.
    public static func problems(inEvent event: JSON) -> [String] {
        guard let fields = event.objectValue else { return ["not an object"] }
        var problems: [String] = []
        func requireString(_ name: String) {
            switch fields[name] {
            case .string(let text)? where !text.isEmpty: break
            case nil: problems.append("missing \(name)")
            default: problems.append("\(name) must be a non-empty string")
            }
        }
        func requireTimestamp(_ name: String) {
            requireString(name)
            if let text = fields[name]?.stringValue, !text.isEmpty, JSON.string(text).timestampValue == nil {
                problems.append("\(name) \"\(text)\" is not an ISO-8601 timestamp")
            }
        }
        func optionalObject(_ name: String) {
            if let value = fields[name], value.objectValue == nil { problems.append("\(name) must be an object") }
        }
        requireString("type")
        requireString("messageId")
        requireString("writeKey")
        requireTimestamp("timestamp")
        requireTimestamp("sentAt")
        if fields["anonymousId"] == nil && fields["userId"] == nil { problems.append("needs anonymousId or userId") }
        if let messageId = fields["messageId"]?.stringValue, messageId.split(separator: "-", maxSplits: 1).first.flatMap({ Int64($0) }) == nil {
            problems.append("messageId \"\(messageId)\" is not <epochMillis>-<uuid>")
        }
        guard fields["context"]?.objectValue != nil else {
            problems.append("missing context object")
            return problems
        }
        optionalObject("properties")
        optionalObject("traits")
        optionalObject("integrations")
        guard let type = fields["type"]?.stringValue else { return problems }
        switch type {
        case "track": requireString("event")
        case "screen", "page": requireString("name")
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
