import MetaRouterCore

/// A tracking plan file as written, before its schemas are compiled: each planned event's
/// properties schema and the identify and group traits schemas, as JSON, with where each is in
/// the file, and every `$ref` within the plan resolved (``SchemaReferences``). ``TrackingPlan``
/// compiles it; the typed-event generator writes Swift from it, so both read the same plans
/// the same way. Three shapes are read, and any other document is refused:
///
/// - this SDK's own: `events` by name, `identify.traits`, `group.traits`, `unplanned`;
/// - Segment's Config API export: `rules.events[]` (each a `name` and a `rules` schema of the
///   whole event, whose `properties.properties` is taken), `rules.identify` /
///   `rules.group` (`properties.traits`) or the highest version of `rules.identify_traits[]` /
///   `rules.group_traits[]` (each `{ name, version, rules }`), bare or under `tracking_plan`;
/// - Segment's Public API rules: `rules[]` (bare, under `tracking_plan` or `data`), each a
///   `key`, a `type` (`TRACK`, `IDENTIFY`, `GROUP`; others are not enforced) and a
///   `jsonSchema` of the whole event — or, as typewriter writes its `plan.json`, the
///   properties schema itself with `jsonSchema.eventMetadata` `{ name, type }`. Of several
///   versions of a rule the highest is read.
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

    /// The shapes read, for the message refusing any other document.
    static let shapes = "this SDK's (`events` by name, `identify.traits`, `group.traits`), Segment's Config API export "
        + "(`rules.events[]`, bare or under `tracking_plan`) and Segment's Public API rules (`rules[]` of `{ key, type, jsonSchema }`, "
        + "with or without typewriter's `jsonSchema.eventMetadata`)"

    /// The planned events, in the file's order (our format's, by name).
    package var events: [Entry] = []
    package var identifyTraits: Entry?
    package var groupTraits: Entry?
    /// What the plan says of events it does not list (`allow` unless it says; a Segment export
    /// reports them).
    package var unplanned = "allow"
    /// What is left of the plan's budget for schemas its `$ref`s expand to.
    private var referenceBudget = SchemaReferences.maximumNodes
    /// Names of Segment `PAGE` and `SCREEN` rules: listed, so never unplanned, but not enforced.
    package var listedOnly: [String] = []

    /// Reads `text` (at most 16 MB).
    package init(text: String) throws(TrackingPlan.LoadError) {
        guard text.utf8.count <= 16 << 20 else { throw TrackingPlan.LoadError(description: "the plan is larger than 16 MB") }
        let root: JSON
        do { root = try JSONParser.parse(text) } catch { throw TrackingPlan.LoadError(description: "the plan is not JSON: \(error)") }
        guard let object = root.objectValue else { throw Self.unknownShape("it is not a JSON object") }
        let segment = object["tracking_plan"] ?? object["data"] ?? root
        if let rules = segment["rules"]?.objectValue {
            try readConfigExport(rules)
        } else if let rules = segment["rules"]?.arrayValue {
            try readPublicRules(rules)
        } else if segment["rules"] != nil {
            throw Self.unknownShape("its `rules` is neither an object with `events` nor an array of rules")
        } else if object["tracking_plan"] != nil {
            throw Self.unknownShape("its `tracking_plan` has no `rules`")
        } else {
            try readOwn(object, root: root)
        }
    }

    private static func unknownShape(_ why: String) -> TrackingPlan.LoadError {
        TrackingPlan.LoadError(description: "the plan is not one of the shapes read (\(why)); the shapes read are \(shapes)")
    }

    private mutating func readOwn(_ object: [String: JSON], root: JSON) throws(TrackingPlan.LoadError) {
        guard ["events", "identify", "group", "unplanned"].contains(where: { object[$0] != nil }) else {
            throw Self.unknownShape("it has none of `events`, `identify`, `group`, `unplanned` or `rules`")
        }
        if let listed = object["events"], listed.objectValue == nil { throw Self.unknownShape("its `events` is not an object by event name") }
        for (name, event) in (object["events"]?.objectValue ?? [:]).sortedByKey() {
            let place = "events/\(name)/properties"
            events.append(Entry(
                name: name, place: place, schema: try SchemaReferences.resolve(event["properties"] ?? .bool(true), root: root, place: place, budget: &referenceBudget),
                description: event["description"]?.stringValue ?? event["properties"]?["description"]?.stringValue))
        }
        identifyTraits = try object["identify"]?["traits"].map { schema throws(TrackingPlan.LoadError) in
            Entry(name: "identify", place: "identify/traits", schema: try SchemaReferences.resolve(schema, root: root, place: "identify/traits", budget: &referenceBudget), description: nil)
        }
        groupTraits = try object["group"]?["traits"].map { schema throws(TrackingPlan.LoadError) in
            Entry(name: "group", place: "group/traits", schema: try SchemaReferences.resolve(schema, root: root, place: "group/traits", budget: &referenceBudget), description: nil)
        }
        unplanned = object["unplanned"]?.stringValue ?? "allow"
    }

    private mutating func readConfigExport(_ rules: [String: JSON]) throws(TrackingPlan.LoadError) {
        guard ["events", "identify", "group", "identify_traits", "group_traits"].contains(where: { rules[$0] != nil }) else {
            throw Self.unknownShape("its `rules` object has none of `events`, `identify`, `group`, `identify_traits`, `group_traits`")
        }
        if let listed = rules["events"], listed.arrayValue == nil { throw Self.unknownShape("its `rules.events` is not an array") }
        let listed = rules["events"]?.arrayValue ?? []
        // One entry per event name (names Swift counts as equal, `"Café"` precomposed and
        // decomposed, are one event, as the device keys them): the highest `version`, the
        // first of equal ones, in the order the names first appear.
        var chosen: [String: (index: Int, version: Double)] = [:]
        var order: [String] = []
        for (index, event) in listed.enumerated() {
            guard let name = event["name"]?.stringValue else { throw TrackingPlan.LoadError(description: "rules/events/\(index) has no name") }
            let version = event["version"]?.doubleValue ?? 0
            if let previous = chosen[name] {
                if version > previous.version { chosen[name] = (index, version) }
            } else {
                chosen[name] = (index, version)
                order.append(name)
            }
        }
        for name in order {
            guard let index = chosen[name]?.index else { continue }
            let event = listed[index]
            let place = "rules/events/\(index)/rules/properties/properties"
            let document = event["rules"] ?? .bool(true)
            events.append(Entry(
                name: event["name"]?.stringValue ?? name, place: place,
                schema: try SchemaReferences.resolve(document["properties"]?["properties"] ?? .bool(true), root: document, place: place, budget: &referenceBudget),
                description: event["description"]?.stringValue))
        }
        for key in ["identify", "group"] {
            // `rules.identify`, or, as the Config API lists them, `rules.identify_traits[]` of
            // `{ name, version, rules }`, whose highest version is read.
            var place = "rules/\(key)"
            var document = rules[key]
            if document == nil, let listed = rules["\(key)_traits"]?.arrayValue,
                let latest = listed.indices.max(by: { (listed[$0]["version"]?.doubleValue ?? 0) < (listed[$1]["version"]?.doubleValue ?? 0) })
            {
                place = "rules/\(key)_traits/\(latest)/rules"
                document = listed[latest]["rules"]
            }
            guard let document, let traits = document["properties"]?["traits"] else { continue }
            place += "/properties/traits"
            let entry = Entry(name: key, place: place, schema: try SchemaReferences.resolve(traits, root: document, place: place, budget: &referenceBudget), description: nil)
            if key == "identify" { identifyTraits = entry } else { groupTraits = entry }
        }
        unplanned = "report"
    }

    private mutating func readPublicRules(_ rules: [JSON]) throws(TrackingPlan.LoadError) {
        // The highest version of each rule, in the order the rules first appear.
        var chosen: [String: (index: Int, version: Double, type: String, name: String)] = [:]
        var order: [String] = []
        for (index, rule) in rules.enumerated() {
            guard rule.objectValue != nil, let document = rule["jsonSchema"] ?? rule["json_schema"] else {
                throw TrackingPlan.LoadError(description: "rules/\(index) has no `jsonSchema`")
            }
            let metadata = document["eventMetadata"]
            let type = (metadata?["type"] ?? rule["type"])?.stringValue?.uppercased() ?? "TRACK"
            let name = (metadata?["name"] ?? rule["key"])?.stringValue ?? ""
            guard type != "TRACK" || !name.isEmpty else { throw TrackingPlan.LoadError(description: "rules/\(index) is a TRACK rule without a `key`") }
            let id = "\(type)\u{0}\(name)"
            let version = rule["version"]?.doubleValue ?? 0
            if let previous = chosen[id] {
                if version > previous.version { chosen[id] = (index, version, type, name) }
            } else {
                chosen[id] = (index, version, type, name)
                order.append(id)
            }
        }
        for id in order {
            guard let (index, _, type, name) = chosen[id] else { continue }
            let rule = rules[index]
            let document = rule["jsonSchema"] ?? rule["json_schema"] ?? .bool(true)
            let metadata = document["eventMetadata"]
            let member = type == "IDENTIFY" || type == "GROUP" ? "traits" : "properties"
            let place = "rules/\(index)/jsonSchema" + (metadata == nil ? "/properties/\(member)" : "")
            // typewriter's plan.json has the properties schema itself; the API's the whole event's.
            var schema = metadata == nil ? document["properties"]?[member] ?? .bool(true) : document
            if metadata != nil, case .object(var members) = schema {
                members["eventMetadata"] = nil
                schema = .object(members)
            }
            let entry = Entry(
                name: type == "TRACK" ? name : type.lowercased(), place: place,
                schema: try SchemaReferences.resolve(schema, root: document, place: place, budget: &referenceBudget), description: rule["description"]?.stringValue)
            switch type {
            case "TRACK": events.append(entry)
            case "IDENTIFY": identifyTraits = entry
            case "GROUP": groupTraits = entry
            case "PAGE", "SCREEN": listedOnly.append(name)
            default: continue
            }
        }
        unplanned = "report"
    }
}
