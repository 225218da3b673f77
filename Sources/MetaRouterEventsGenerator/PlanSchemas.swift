import MetaRouterCore

/// The parts of a tracking plan code is generated from: each planned event's properties
/// schema, and the identify and group traits schemas, as JSON. Both formats the SDK enforces
/// load: its own (`events` by name, `identify.traits`, `group.traits`) and a Segment Protocols
/// export (`rules.events[]`, bare or under `tracking_plan`).
struct PlanSchemas {
    struct Entry {
        /// The name on the wire (an event's name; `identify` / `group` for traits).
        let name: String
        /// Where the entry is in the plan, for messages.
        let place: String
        let schema: JSON
        let description: String?
    }

    var events: [Entry] = []
    var identifyTraits: Entry?
    var groupTraits: Entry?

    init(text: String) throws(GenerationError) {
        guard text.utf8.count <= 16 << 20 else { throw GenerationError("the plan is larger than 16 MB") }
        let root: JSON
        do { root = try JSONParser.parse(text) } catch { throw GenerationError("the plan is not JSON: \(error)") }
        let segment = root["tracking_plan"] ?? root
        if let rules = segment["rules"]?.objectValue {
            for (index, event) in (rules["events"]?.arrayValue ?? []).enumerated() {
                guard let name = event["name"]?.stringValue else { throw GenerationError("rules/events/\(index) has no name") }
                events.append(Entry(
                    name: name, place: "rules/events/\(index) (\"\(name)\")", schema: event["rules"]?["properties"]?["properties"] ?? .bool(true),
                    description: event["description"]?.stringValue))
            }
            identifyTraits = rules["identify"]?["properties"]?["traits"].map { Entry(name: "identify", place: "rules/identify", schema: $0, description: nil) }
            groupTraits = rules["group"]?["properties"]?["traits"].map { Entry(name: "group", place: "rules/group", schema: $0, description: nil) }
        } else {
            guard let object = root.objectValue else { throw GenerationError("the plan is not a JSON object") }
            for (name, event) in (object["events"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                events.append(Entry(
                    name: name, place: "events/\"\(name)\"", schema: event["properties"] ?? .bool(true),
                    description: event["description"]?.stringValue ?? event["properties"]?["description"]?.stringValue))
            }
            identifyTraits = object["identify"]?["traits"].map { Entry(name: "identify", place: "identify/traits", schema: $0, description: nil) }
            groupTraits = object["group"]?["traits"].map { Entry(name: "group", place: "group/traits", schema: $0, description: nil) }
        }
    }
}

/// Why code could not be generated from a plan: one message naming the plan entry.
public struct GenerationError: Error, Sendable, CustomStringConvertible {
    /// In words, with the place in the plan.
    public let description: String

    init(_ description: String) { self.description = description }
}
