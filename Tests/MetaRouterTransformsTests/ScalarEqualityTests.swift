import MetaRouterCore
import Testing

@testable import MetaRouterTransforms

/// Strings are equal in the rule language only when they hold the same Unicode scalars, as in
/// Segment's engine (JavaScript's `===`): "café" written with U+00E9 is not "café" written
/// with "e" and U+0301, though Swift's `==` calls them equal.
@Suite struct ScalarEqualityTests {
    private let composed = "caf\u{E9}"
    private let decomposed = "cafe\u{301}"

    private func event(_ name: String) -> Event {
        Event(type: .track, event: name, properties: ["name": .string(name), "nested": ["name": .string(name)]])
    }

    @Test func theTwoSpellingsAreDifferentStrings() {
        #expect(composed == decomposed, "Swift's == compares by canonical equivalence")
        #expect(!composed.hasSameScalars(as: decomposed))
        #expect(composed.hasSameScalars(as: "caf\u{E9}"))
        #expect("".hasSameScalars(as: ""))
    }

    @Test(arguments: [
        "event = \"caf\u{E9}\"",
        "properties.name = \"caf\u{E9}\"",
        "properties.nested.name = \"caf\u{E9}\"",
        "properties.name in [\"caf\u{E9}\", \"tea\"]",
        "properties.name in [\"caf\u{E9}\", 1]",
        "lowercase(properties.name) = \"caf\u{E9}\"",
        "properties.name != \"tea\" and properties.name = \"caf\u{E9}\"",
    ])
    func conditionsCompareByScalars(_ condition: String) throws {
        let rules = try RuleSetLoader.load("rule \"drop\" {\n    when \(condition)\n    drop\n}", format: .text)
        #expect(rules.apply(to: event(composed)) == nil, "\(condition) missed the same string")
        #expect(rules.apply(to: event(decomposed)) != nil, "\(condition) matched a different string")
        let negated = try RuleSetLoader.load("rule \"keep\" {\n    when !(\(condition))\n    drop\n}", format: .text)
        #expect(negated.apply(to: event(decomposed)) == nil)
    }

    @Test func segmentIREqualityComparesByScalars() throws {
        let settings = #"[{"matchers": [{"type": "fql", "ir": "[\"=\", \"event\", {\"value\": \"caf\u00e9\"}]"}], "transformers": [[{"type": "drop"}]]}]"#
        let rules = try RuleSetLoader.load(settings, format: .segment)
        #expect(rules.apply(to: event(composed)) == nil)
        #expect(rules.apply(to: event(decomposed)) != nil)
    }
}
