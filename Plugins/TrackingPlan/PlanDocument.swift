import MetaRouterCore

/// A tracking plan file as written, before its schemas are compiled: each planned event's
/// properties schema and the identify and group traits schemas, as JSON, with where each is in
/// the file. Both formats read here: this SDK's own (`events` by name, `identify.traits`,
/// `group.traits`, `unplanned`) and a Segment Protocols export (`rules.events[]`, bare or under
/// `tracking_plan`). ``TrackingPlan`` compiles it; the typed-event generator writes Swift from it.
package struct PlanDocument: Sendable {
    /// One schema of the plan.
    package struct Entry: Sendable {
        /// The name on the wire (an event's name; `identify` / `group` for traits).
        package let name: String
        /// Where the entry's schema is in the file (`events/Order Completed/properties`), for
        /// messages.
        package let place: String
        package let schema: JSON
        package let description: String?
    }

    /// The planned events, in the file's order (our format's, by name).
    package var events: [Entry] = []
    package var identifyTraits: Entry?
    package var groupTraits: Entry?
    /// What the plan says of events it does not list (`allow` unless it says; a Segment export
    /// reports them).
    package var unplanned = "allow"

    /// Reads `text` (at most 16 MB).
    package init(text: String) throws(TrackingPlan.LoadError) {
        guard text.utf8.count <= 16 << 20 else { throw TrackingPlan.LoadError(description: "the plan is larger than 16 MB") }
        let root: JSON
        do { root = try JSONParser.parse(text) } catch { throw TrackingPlan.LoadError(description: "the plan is not JSON: \(error)") }
        let segment = root["tracking_plan"] ?? root
        if let rules = segment["rules"]?.objectValue {
            for (index, event) in (rules["events"]?.arrayValue ?? []).enumerated() {
                guard let name = event["name"]?.stringValue else { throw TrackingPlan.LoadError(description: "rules/events/\(index) has no name") }
                events.append(Entry(
                    name: name, place: "rules/events/\(index)/rules/properties/properties", schema: event["rules"]?["properties"]?["properties"] ?? .bool(true),
                    description: event["description"]?.stringValue))
            }
            identifyTraits = rules["identify"]?["properties"]?["traits"].map { Entry(name: "identify", place: "rules/identify", schema: $0, description: nil) }
            groupTraits = rules["group"]?["properties"]?["traits"].map { Entry(name: "group", place: "rules/group", schema: $0, description: nil) }
            unplanned = "report"
        } else {
            guard let object = root.objectValue else { throw TrackingPlan.LoadError(description: "the plan is not a JSON object") }
            for (name, event) in (object["events"]?.objectValue ?? [:]).sortedByKey() {
                events.append(Entry(
                    name: name, place: "events/\(name)/properties", schema: event["properties"] ?? .bool(true),
                    description: event["description"]?.stringValue ?? event["properties"]?["description"]?.stringValue))
            }
            identifyTraits = object["identify"]?["traits"].map { Entry(name: "identify", place: "identify/traits", schema: $0, description: nil) }
            groupTraits = object["group"]?["traits"].map { Entry(name: "group", place: "group/traits", schema: $0, description: nil) }
            unplanned = object["unplanned"]?.stringValue ?? "allow"
        }
    }
}
