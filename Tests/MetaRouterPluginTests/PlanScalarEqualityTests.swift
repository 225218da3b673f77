import MetaRouter
import Testing

/// JSON Schema compares strings by code points, so `const` and `enum` tell "é" (U+00E9) from
/// "e" + U+0301, which Swift's `==` calls equal. (JSON-Schema-Test-Suite, draft7 `const.json`:
/// "const with a non-normalized string" — the one case of 326 the plan disagreed with.)
@Suite struct PlanScalarEqualityTests {
    private let composed = "caf\u{E9}"
    private let decomposed = "cafe\u{301}"

    private func plan(_ schema: String) throws -> TrackingPlan {
        try TrackingPlan(json: #"{ "events": { "Order": { "properties": { "properties": { "drink": "# + schema + #" } } } } }"#)
    }

    private func violations(_ plan: TrackingPlan, _ drink: String) -> [String] {
        plan.violations(of: Event(type: .track, event: "Order", properties: ["drink": .string(drink)])).map(\.rule)
    }

    @Test func constAndEnumCompareByCodePoints() throws {
        for schema in [#"{ "const": "caf\u00e9" }"#, #"{ "enum": ["tea", "caf\u00e9"] }"#] {
            let plan = try plan(schema)
            #expect(violations(plan, composed).isEmpty, "\(schema) refused the same string")
            #expect(!violations(plan, decomposed).isEmpty, "\(schema) accepted a different string")
        }
    }
}
