import Foundation
import MetaRouterCore

/// Which events exist and what their properties (and identify / group traits) must look like,
/// as JSON Schemas, plus what to do with events the plan does not list.
///
/// Three shapes load (any other document is refused, with an error naming them): this SDK's
/// own —
///
/// ```json
/// { "unplanned": "report",
///   "events": { "Order Completed": { "properties": { "type": "object", "required": ["total"] } } },
///   "identify": { "traits": { … } }, "group": { "traits": { … } } }
/// ```
///
/// — Segment's Config API export (`rules.events[]` with a `name` and a `rules` schema of the
/// whole event, whose `properties.properties` is taken; `rules.identify` / `rules.group`
/// likewise with `properties.traits`), bare or under `tracking_plan`, and Segment's Public API
/// rules (`rules[]` of `{ key, type, jsonSchema }`). A `$ref` within the plan is resolved.
public struct TrackingPlan: Sendable {
    /// What to do with a `track`, `screen` or `page` whose name the plan does not list.
    package enum Unplanned: String, Sendable {
        /// Deliver it; no violation.
        case allow
        /// A violation (`unplanned`), handled by the plugin's mode like any other.
        case report
        /// Drop it, whatever the mode.
        case block
    }

    /// The properties schema of each planned event name.
    package var events: [String: JSONSchema]
    /// The traits schema of `identify` calls, if the plan has one.
    package var identifyTraits: JSONSchema?
    /// The traits schema of `group` calls, if the plan has one.
    package var groupTraits: JSONSchema?
    /// Events the plan does not list (the JSON's `unplanned`).
    package var unplanned: Unplanned
    /// Screen and page names the plan lists without enforcing them (Segment's `PAGE` and
    /// `SCREEN` rules): never unplanned.
    package var listedOnly: Set<String> = []

    /// A plan from its parts.
    package init(events: [String: JSONSchema], identifyTraits: JSONSchema? = nil, groupTraits: JSONSchema? = nil, unplanned: Unplanned = .allow) {
        self.events = events
        self.identifyTraits = identifyTraits
        self.groupTraits = groupTraits
        self.unplanned = unplanned
    }

    /// A plan that cannot be loaded; `description` says why in words, with the place in the plan.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Loads any of the three shapes from JSON text (at most 16 MB).
    ///
    /// - Parameter json: The plan: our format or a Segment Protocols export (Config or Public API).
    public init(json text: String) throws {
        try self.init(document: PlanDocument(text: text))
    }

    /// The plan `document` holds, its schemas compiled: the typed-event generator loads its
    /// plans through this too, so a plan the device would refuse fails the build with the same
    /// message.
    package init(document: PlanDocument) throws(LoadError) {
        guard let unplanned = Unplanned(rawValue: document.unplanned) else {
            throw LoadError(description: "unplanned is \"\(document.unplanned)\"; expected allow, report or block")
        }
        var events: [String: JSONSchema] = [:]
        for entry in document.events { events[entry.name] = try Self.schema(entry.schema, entry.place) }
        var identifyTraits: JSONSchema?
        if let entry = document.identifyTraits { identifyTraits = try Self.schema(entry.schema, entry.place) }
        var groupTraits: JSONSchema?
        if let entry = document.groupTraits { groupTraits = try Self.schema(entry.schema, entry.place) }
        self.init(events: events, identifyTraits: identifyTraits, groupTraits: groupTraits, unplanned: unplanned)
        listedOnly = Set(document.listedOnly)
    }

    private static func schema(_ json: JSON, _ place: String) throws(LoadError) -> JSONSchema {
        do { return try JSONSchema(json, path: place) } catch { throw LoadError(description: "\(error)") }
    }

    /// Every violation of the plan by `event`, with paths starting at `properties` or `traits`.
    /// `alias` events are not planned.
    ///
    /// - Parameter event: The event to check.
    /// - Returns: Where it departs from the plan; empty when it conforms.
    public func violations(of event: Event) -> [PlanViolation] {
        let checksTraits = event.type == .identify || event.type == .group
        if let schema = schema(for: event) {
            let found = checksTraits
                ? schema.violations(of: .object(event.traits ?? [:]), at: "traits")
                : schema.violations(of: .object(event.properties ?? [:]), at: "properties")
            return Self.namingDroppedValues(found, event.droppedAtCall)
        }
        let name = event.event ?? event.name ?? ""
        guard !checksTraits, event.type != .alias, unplanned != .allow, event.type == .track || !listedOnly.contains(name) else { return [] }
        return [PlanViolation(path: "event", rule: "unplanned", message: "\"\(name)\" is not in the plan")]
    }

    /// A required value the call gave but the SDK dropped (NaN, an infinity, a date outside
    /// years 0000–9999, a value JSON cannot hold) is missing for that reason, not for want of
    /// a value: the message says so.
    private static func namingDroppedValues(_ found: [PlanViolation], _ dropped: [String: String]) -> [PlanViolation] {
        guard !dropped.isEmpty else { return found }
        return found.map { violation in
            guard violation.rule == "required", let reason = dropped[violation.path] else { return violation }
            return PlanViolation(path: violation.path, rule: violation.rule, message: "missing: the value given was dropped at the call (\(reason))")
        }
    }

    /// The schema the event's properties (or traits) are checked against, if any.
    func schema(for event: Event) -> JSONSchema? {
        switch event.type {
        case .track, .screen, .page: return events[event.event ?? event.name ?? ""]
        case .identify: return identifyTraits
        case .group: return groupTraits
        case .alias: return nil
        }
    }
}
