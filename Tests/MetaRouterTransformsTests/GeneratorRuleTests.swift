import Foundation
import MetaRouterCore
import MetaRouterTransforms
import Testing

/// Generator rules on their own: parsing (errors with line and column), the document
/// expressions they use, and the events they make from a scripted signal sequence.
@Suite struct GeneratorRuleTests {
    private func signal(_ index: Int, _ type: String, _ data: JSON) -> JSON {
        ["index": .int(Int64(index)), "type": .string(type), "data": data, "anonymousId": "a", "timestamp": "2026-11-23T00:00:00.000Z"]
    }

    @Test func aRuleFiresOnItsTypeAndConditionAndReadsWhatItFound() throws {
        let rules = try GeneratorRuleParser.parse("""
            generator "checkout screen" {
                on navigation when data.action = "entering" and match(data.screen, "Checkout*")
                find tap: interaction where data.title != null
                screen signal.data.screen
                set properties.after = tap.data.title
                set properties.nested.index = signal.index
            }
            """)
        let history = [signal(0, "interaction", ["title": "Pay"]), signal(1, "interaction", ["component": "list"])]
        let lookBack: (String, (JSON) -> Bool) -> JSON? = { type, predicate in
            history.reversed().first { $0["type"]?.stringValue == type && predicate($0) }
        }
        let event = try #require(rules[0].event(for: signal(2, "navigation", ["action": "entering", "screen": "Checkout Step 1"]), at: Date(), lookBack: lookBack))
        #expect(event.type == .screen && event.name == "Checkout Step 1")
        #expect(event.properties == ["after": "Pay", "nested": ["index": 2]])
        #expect(rules[0].event(for: signal(3, "navigation", ["action": "leaving", "screen": "Checkout"]), at: Date(), lookBack: lookBack) == nil)
        #expect(rules[0].event(for: signal(4, "interaction", ["action": "entering", "screen": "Checkout"]), at: Date(), lookBack: lookBack) == nil)
        // Nothing found: its paths are missing, and a missing value sets nothing.
        let alone = try #require(rules[0].event(for: signal(5, "navigation", ["action": "entering", "screen": "Checkout"]), at: Date()) { _, _ in nil })
        #expect(alone.properties == ["nested": ["index": 5]])
    }

    @Test func badGeneratorTextIsRejectedWithWhereAndWhy() {
        let cases: [(String, String)] = [
            ("generator \"a\" { on navigation }", "emits nothing"),
            ("generator \"a\" { on navigation track \"x\" set context.x = 1 }", "sets fields of properties"),
            ("generator \"a\" { on navigation track \"x\" track \"y\" }", "one event"),
            ("generator \"a\" { on navigation track \"x\"", "never closed"),
            ("generator \"a\" { track \"x\" }", "expected \"on\""),
            ("rule \"a\" { drop }", "expected \"generator\""),
        ]
        for (text, expected) in cases {
            #expect(throws: RuleParseError.self) { try GeneratorRuleParser.parse(text) }
            do {
                _ = try GeneratorRuleParser.parse(text)
            } catch {
                #expect(error.message.contains(expected), "\(text): \(error)")
                #expect(error.line >= 1 && error.column >= 1)
            }
        }
    }

    @Test func documentExpressionsFollowTheRuleLanguage() throws {
        let document: JSON = ["data": ["title": "Add", "price": 5, "tags": ["a", "b"]]]
        #expect(try DocumentExpression("data.price > 4 and contains(data.tags, \"b\")").matches(document))
        #expect(try DocumentExpression("data.missing = null").matches(document))
        #expect(try DocumentExpression("data.price = \"5\"").matches(document) == false)
        #expect(try DocumentExpression("concat(lowercase(data.title), \"-\", data.price)").value(in: document) == "add-5")
        #expect(try DocumentExpression("data.missing ?? data.title").value(in: document) == "Add")
        #expect(throws: RuleParseError.self) { try DocumentExpression(String(repeating: "(", count: 1_000) + "1" + String(repeating: ")", count: 1_000)) }
    }
}
