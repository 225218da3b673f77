import Foundation
import MetaRouter
import MetaRouterEventsGenerator
import MetaRouterTrackingPlan
import Testing

/// The generator and the device read every plan the same way: one event per name, the same
/// entries listed, the same plans refused with the same message.
@Suite struct PlanReadingAgreementTests {
    private static func configRule(_ name: String, version: Int, required: String, type: String) -> String {
        #"{"name": "\#(name)", "version": \#(version), "rules": {"properties": {"properties": {"type": "object", "required": ["\#(required)"], "#
            + #""properties": {"\#(required)": {"type": "\#(type)"}}, "additionalProperties": false}}}}"#
    }

    /// Versions of one event in a Config API export, and names Swift counts as equal (`"Café"`
    /// precomposed and decomposed), are one event: its highest version, for both readers.
    /// Before, the generator made `OrderCompleted` and `OrderCompleted_2` while the device kept
    /// the last entry only, so every value of the first type was blocked.
    @Test func versionsAndEquivalentNamesAreOneEvent() throws {
        let plan = #"{"rules": {"events": ["#
            + [Self.configRule("Order Completed", version: 2, required: "b", type: "integer"),
               Self.configRule("Order Completed", version: 1, required: "a", type: "string"),
               Self.configRule("Caf\u{E9}", version: 1, required: "c", type: "string"),
               Self.configRule("Cafe\u{301}", version: 3, required: "d", type: "string")].joined(separator: ", ")
            + "]}}"
        let code = try EventsGenerator.generate(plan: plan)
        #expect(!code.contains("OrderCompleted_2") && !code.contains("Caf_2"), "one type per event")
        #expect(code.contains("b: Swift.Int") && !code.contains("a: Swift.String"), "the highest version's properties")
        #expect(code.contains("d: Swift.String") && !code.contains("c: Swift.String"), "the equivalent name's highest version")
        let device = try TrackingPlan(json: plan)
        #expect(device.violations(of: Event(type: .track, event: "Order Completed", properties: ["b": 1])).isEmpty)
        #expect(!device.violations(of: Event(type: .track, event: "Order Completed", properties: ["a": "x"])).isEmpty)
        #expect(device.violations(of: Event(type: .track, event: "Cafe\u{301}", properties: ["d": "x"])).isEmpty)
    }

    /// A Segment `PAGE` or `SCREEN` rule lists its name: a page or screen of that name is not
    /// "not in the plan" (the rule itself is not enforced); other names still are.
    @Test func pageAndScreenRulesAreListed() throws {
        let plan = #"{"rules": [{"key": "Home", "type": "PAGE", "version": 1, "jsonSchema": {"properties": {"properties": {"type": "object"}}}}, "#
            + #"{"key": "Settings", "type": "SCREEN", "version": 1, "jsonSchema": {"properties": {"properties": {"type": "object"}}}}, "#
            + #"{"key": "Order Completed", "type": "TRACK", "version": 1, "jsonSchema": {"properties": {"properties": {"type": "object"}}}}]}"#
        let device = try TrackingPlan(json: plan)
        #expect(device.violations(of: Event(type: .page, name: "Home", properties: ["name": "Home"])).isEmpty)
        #expect(device.violations(of: Event(type: .screen, name: "Settings", properties: ["name": "Settings"])).isEmpty)
        #expect(device.violations(of: Event(type: .screen, name: "Elsewhere", properties: ["name": "Elsewhere"])).map(\.rule) == ["unplanned"])
        #expect(device.violations(of: Event(type: .track, event: "Home", properties: [:])).map(\.rule) == ["unplanned"], "a page rule lists a page, not a track")
    }

    /// What the device refuses at launch, the build refuses, with the same message (before, these
    /// generated code and then threw in the app).
    @Test(arguments: [
        #"{"events": {"E": {"properties": 5}}}"#,
        #"{"events": {"E": {"properties": {"type": "object", "properties": {"s": {"type": "strin"}}}}}}"#,
        #"{"events": {"E": {"properties": {"type": "object", "properties": {"s": {"type": ["string", 5]}}}}}}"#,
        #"{"events": {"E": {"properties": {"type": "object", "required": "a"}}}}"#,
        #"{"events": {"E": {"properties": {"type": "object", "properties": {"s": {"type": "string", "minLength": -1}}}}}}"#,
        #"{"events": {"E": {"properties": {"type": "object", "properties": {"s": {"type": "string", "pattern": "[unclosed"}}}}}}"#,
        #"{"events": {"E": {"properties": {"type": "object", "properties": {"Caf\#u{E9}": {"type": "string"}, "Cafe\#u{301}": {"type": "string"}}}}}}"#,
    ])
    func aPlanTheDeviceRefusesFailsTheBuildWithTheSameMessage(plan: String) {
        var deviceMessage: String?
        do { _ = try TrackingPlan(json: plan) } catch { deviceMessage = "\(error)" }
        var buildMessage: String?
        do { _ = try EventsGenerator.generate(plan: plan) } catch { buildMessage = error.description }
        #expect(deviceMessage != nil, "the device loads \(plan)")
        #expect(buildMessage == deviceMessage, "build: \(buildMessage ?? "generated"); device: \(deviceMessage ?? "loaded")")
    }

    /// A `tracking_plan` without `rules` is refused for that reason.
    @Test func aTrackingPlanWithoutRulesSaysSo() {
        var message = ""
        do { _ = try TrackingPlan(json: #"{"tracking_plan": {"name": "x"}}"#) } catch { message = "\(error)" }
        #expect(message.contains("its `tracking_plan` has no `rules`"), "\(message)")
    }

    /// References fan out across the whole plan, not per entry: five events each expanding to
    /// some 54,000 schemas (a 2.6 KB plan that became 69 MB of Swift) pass the budget one by one
    /// and are refused together, by both readers with the same message.
    @Test func referencesFanningOutAcrossThePlanAreRefusedByBoth() throws {
        func level(_ inner: String?) -> String {
            let member = inner.map { ##"{"$ref": "#/definitions/\##($0)"}"## } ?? #"{"type": "string"}"#
            return #"{"type": "object", "properties": {"# + (0..<15).map { #""p\#($0)": \#(member)"# }.joined(separator: ", ") + "}}"
        }
        let definitions = #""d1": \#(level(nil)), "d2": \#(level("d1")), "d3": \#(level("d2")), "d4": \#(level("d3"))"#
        let events = (1...5).map { ##""E\##($0)": {"properties": {"$ref": "#/definitions/d4"}}"## }.joined(separator: ", ")
        let plan = #"{"definitions": {\#(definitions)}, "events": {\#(events)}}"#
        var deviceMessage = ""
        do { _ = try TrackingPlan(json: plan) } catch { deviceMessage = "\(error)" }
        var buildMessage = ""
        do { _ = try EventsGenerator.generate(plan: plan) } catch { buildMessage = error.description }
        #expect(deviceMessage.contains("expand to more than 200000 schemas in all"), "\(deviceMessage)")
        #expect(buildMessage == deviceMessage)
    }

    /// A Config API export's `identify_traits` / `group_traits` (rules of `{ name, version,
    /// rules }`) are read, their highest version, by both readers: they were ignored, so
    /// identify enforced nothing and no typed traits were generated.
    @Test func configTraitRulesAreRead() throws {
        let traits = #"{"name": "email", "version": 2, "rules": {"properties": {"traits": {"type": "object", "required": ["email"], "properties": {"email": {"type": "string"}}}}}}"#
        let older = #"{"name": "email", "version": 1, "rules": {"properties": {"traits": {"type": "object", "required": ["phone"]}}}}"#
        let plan = #"{"rules": {"events": [], "identify_traits": [\#(older), \#(traits)], "group_traits": [\#(traits)]}}"#
        let code = try EventsGenerator.generate(plan: plan)
        #expect(code.contains("struct IdentifyTraits") && code.contains("struct GroupTraits"))
        #expect(code.contains("email: Swift.String") && !code.contains("phone"))
        let device = try TrackingPlan(json: plan)
        #expect(device.violations(of: Event(type: .identify, userId: "u", traits: ["email": "a@b.c"])).isEmpty)
        #expect(device.violations(of: Event(type: .identify, userId: "u", traits: [:])).map(\.path) == ["traits.email"])
        #expect(device.violations(of: Event(type: .group, groupId: "g", traits: [:])).map(\.path) == ["traits.email"])
    }

    /// `null` in an enum counts only where the schema's `type` allows it: with `"type":
    /// "string"` the property takes no `nil`, which the device would block.
    @Test func nullInAnEnumFollowsTheType() throws {
        let plan = #"{"events": {"E": {"properties": {"type": "object", "required": ["s", "t"], "properties": {"#
            + #""s": {"type": "string", "enum": ["a", null]}, "t": {"type": ["string", "null"], "enum": ["a", null]}}}}}}"#
        let code = try EventsGenerator.generate(plan: plan)
        #expect(code.contains("let s: PlannedEvents.E.S\n") || code.contains("let s: S\n"), "s is not optional")
        #expect(code.contains("let t: PlannedEvents.E.T?") || code.contains("let t: T?"), "t is optional")
        let device = try TrackingPlan(json: plan)
        #expect(!device.violations(of: Event(type: .track, event: "E", properties: ["s": .null, "t": "a"])).isEmpty)
        #expect(device.violations(of: Event(type: .track, event: "E", properties: ["s": "a", "t": .null])).isEmpty)
    }
}
