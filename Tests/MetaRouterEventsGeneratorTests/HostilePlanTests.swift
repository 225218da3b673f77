import Foundation
import MetaRouterEventsGenerator
import MetaRouterTesting
import Testing

/// Plans no one should write, and some that look like what people do write: each gives code
/// that compiles or one message naming the plan entry. The generator runs on a 512 KiB stack,
/// as a secondary thread on iOS has (the build tool runs on a Mac, but the walk is the same).
@Suite struct HostilePlanTests {
    /// What a plan gives: the code, or the error's message.
    static func outcome(_ plan: String) -> Swift.Result<String, GenerationError> {
        SmallStack.run { Swift.Result { () throws(GenerationError) -> String in try EventsGenerator.generate(plan: plan) } }
    }

    static func json(_ value: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Awkward names of every kind, 1,000 events and a 20-deep nesting compile together.
    @Test func awkwardNamesManyEventsAndDeepNestingCompile() async throws {
        var events: [String: Any] = [:]
        let awkward = ["Order Completed", "order-completed v2", "🚀 Launched", "2nd Try", "class", "self", "Type", "init", "default",
                       "a.b.c", "  spaced  ", "", "!!!", "Ünïcödé", "track", "flush", "JSON", "Date", "Analytics"]
        for name in awkward {
            events[name] = ["properties": ["type": "object", "properties": [
                "class": ["type": "string"], "self": ["type": "integer"], "2x": ["type": "number"], "🙂": ["type": "boolean"],
                "inout": ["type": "string"], "var": ["type": "string"], "rawValue": ["type": "string", "enum": ["init", "rawValue", "", "a b"]],
            ]]]
        }
        for index in 0..<1_000 { events["Generated Event \(index)"] = ["properties": ["type": "object", "properties": ["n": ["type": "integer"]]]] }
        var deep: [String: Any] = ["type": "string"]
        for level in 0..<20 { deep = ["type": "object", "required": ["level\(level)"], "properties": ["level\(level)": deep]] }
        events["Deep"] = ["properties": deep]
        let plan = Self.json(["events": events])
        let code = try Self.outcome(plan).get()
        let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code])
        #expect(result.succeeded, "\(result.errors.prefix(5))")
    }

    /// Names that come out the same are told apart by their place in the plan, with a warning
    /// naming both entries and the Swift names chosen; the code compiles.
    @Test(arguments: [
        (#"{"events": {"Event Collided": {}, "event_collided": {}}}"#, ["Event Collided", "event_collided", "`EventCollided_2`"]),
        (#"{"events": {"Order": {"properties": {"type": "object", "properties": {"order_id": {}, "orderId": {}}}}}}"#, ["order_id", "orderId", "`orderId_2`"]),
        (#"{"events": {}, "identify": {"traits": {"properties": {"first name": {}, "firstName": {}}}}}"#, ["first name", "firstName", "`firstName_2`"]),
        (#"{"events": {"E": {"properties": {"properties": {"kind": {"enum": ["Gold", "gold"]}}}}}}"#, ["Gold", "gold", "`gold_2`"]),
    ])
    func collisionsAreToldApartWithAWarning(plan: String, names: [String]) async throws {
        let output = try EventsGenerator.files(plan: plan, shards: 1)
        let warning = try #require(output.warnings.first, "no warning")
        for name in names { #expect(warning.contains(name.hasPrefix("`") ? name : "\"\(name)\""), "\(warning)") }
        let result = try await Compiler.typecheck(["MetaRouterEvents.swift": EventsGenerator.generate(plan: plan)])
        #expect(result.succeeded, "\(result.errors.prefix(3))")
    }

    /// Deeper than the generator walks: one message naming the entry, no crash.
    @Test func nestingPastTheLimitIsOneMessage() throws {
        var deep: [String: Any] = ["type": "string"]
        for level in 0..<50 { deep = ["type": "object", "properties": ["l\(level)": deep]] }
        let plan = "{\"events\":{\"Too Deep\":{\"properties\":" + Self.json(deep) + "}}}"
        guard case .failure(let error) = Self.outcome(plan) else {
            Issue.record("50 levels generated code")
            return
        }
        #expect(error.description.contains("Too Deep") && error.description.contains("deeper than"), "\(error)")
    }

    /// Not a plan, or a plan whose schemas are not schemas: an error or code that compiles.
    @Test(arguments: [
        "", "[]", "{", "{\"events\": 5}", "{\"events\": {\"A\": {\"properties\": 5}}}", "{\"events\": {\"A\": {\"properties\": {\"properties\": []}}}}",
        "{\"events\": {\"A\": {\"properties\": {\"type\": [\"string\", \"integer\"], \"properties\": {\"x\": {\"type\": 7}}}}}}",
        "{\"tracking_plan\": {\"rules\": {\"events\": [{\"name\": \"Seg Event\", \"rules\": {\"properties\": {\"properties\": {\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}}}}}}]}}}",
        "{\"rules\": {\"events\": [{\"rules\": {}}]}}",
    ])
    func malformedPlansFailCleanlyOrCompile(plan: String) async throws {
        switch Self.outcome(plan) {
        case .failure(let error):
            #expect(!error.description.isEmpty)
        case .success(let code):
            let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code])
            #expect(result.succeeded, "\(plan): \(result.errors.prefix(3))")
        }
    }

    /// Random plans (seeded): names from a hostile alphabet, random types, nesting and enums.
    /// Each gives code that compiles or an error; 25 are compiled.
    @Test func randomPlansCompileOrFailCleanly() async throws {
        var random = SeededRandom(seed: 51_52)
        let alphabet = Array("aZ_ 9-.🚀éclassinit\"\\\n")
        func name() -> String { String((0..<random.next(12)).map { _ in alphabet[random.next(alphabet.count)] }) }
        func schema(_ depth: Int) -> [String: Any] {
            switch random.next(depth > 4 ? 5 : 8) {
            case 0: return ["type": "string"]
            case 1: return ["type": "integer"]
            case 2: return ["type": "number"]
            case 3: return ["type": "string", "format": "date-time"]
            case 4: return ["enum": (0..<1 + random.next(4)).map { _ in name() }]
            case 5: return ["type": "array", "items": schema(depth + 1)]
            case 6: return [:]
            default:
                var properties: [String: Any] = [:]
                for _ in 0..<random.next(5) { properties[name()] = schema(depth + 1) }
                return ["type": "object", "properties": properties, "required": Array(properties.keys.prefix(1))]
            }
        }
        var compiled = 0
        for _ in 0..<25 {
            var events: [String: Any] = [:]
            for _ in 0..<(1 + random.next(6)) { events[name()] = ["properties": schema(0)] }
            let plan = Self.json(["events": events, "identify": ["traits": schema(0)]])
            guard case .success(let code) = Self.outcome(plan) else { continue }
            let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code])
            #expect(result.succeeded, "\(plan)\n\(result.errors.prefix(3))")
            compiled += 1
        }
        #expect(compiled >= 10, "most random plans have no collision")
    }
}

/// Every schema group of the JSON Schema draft 7 suite that the on-device plan supports (the
/// 87 in `MetaRouterPluginTests/Fixtures`) becomes a property of a planned event. Each gives a
/// type (property names that collide in Swift, "foo\tbar" and "foo\nbar", are told apart with a
/// warning), or one message naming the entry; the code for all of them together compiles.
@Suite struct SchemaSuiteCodegenTests {
    @Test func everySupportedSuiteSchemaBecomesATypeThatCompiles() async throws {
        let fixture = Compiler.root.appendingPathComponent("Tests/MetaRouterPluginTests/Fixtures/jsonschema_suite_draft7.json")
        let suite = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any]
        let groups = try #require(suite?["groups"] as? [[String: Any]])
        #expect(groups.count == 87)
        var events: [String: Any] = [:]
        var refused: [String] = []
        for (index, group) in groups.enumerated() {
            let schema = try #require(group["schema"])
            let name = "Suite \(index) \(group["keyword"] ?? "")"
            let event = ["properties": ["type": "object", "properties": ["value": schema, "nested": ["type": "object", "properties": ["inner": schema]]]]]
            switch HostilePlanTests.outcome(HostilePlanTests.json(["events": [name: event]])) {
            case .success: events[name] = event
            case .failure(let error):
                #expect(error.description.contains("\"\(name)\""), "\(error)")
                refused.append(name)
            }
        }
        #expect(refused.count <= 2, "\(refused)")
        let code = try HostilePlanTests.outcome(HostilePlanTests.json(["events": events])).get()
        #expect(code.components(separatedBy: "static var eventName: Swift.String { \"").count - 1 == events.count)
        let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code])
        #expect(result.succeeded, "\(result.errors.prefix(5))")
    }
}
