import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

/// Rule text, JSON and caller values may be hostile: however deeply they nest, reading them on a 512 KiB stack
/// (an iOS secondary thread) ends with an error that names a line and column, never a crash.
@Suite struct HostileInputStackTests {
    /// Parses `text` on a small stack and returns the error, or `nil` when it parsed.
    private func parseError(_ text: String) -> RuleParseError? {
        SmallStack.run { () -> RuleParseError? in
            do {
                _ = try ExpressionParser.parse(text)
                return nil
            } catch {
                return error as? RuleParseError
            }
        }
    }

    @Test(arguments: [
        ("(", ")"), ("lowercase(", ")"), ("[", "]"), ("length(", ")"),
    ])
    func deepNestingIsAnErrorWithAPosition(open: String, close: String) throws {
        for depth in [1_000, 20_000] {
            let text = String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
            let error = try #require(parseError(text))
            #expect(error.message.contains("nested deeper than 64"))
            #expect(error.line == 1)
            #expect(error.column > 1)
        }
    }

    @Test func longNegationAndCoalescingChainsAreErrors() throws {
        let negations = try #require(parseError(String(repeating: "!", count: 10_000) + "a"))
        #expect(negations.message.contains("nested deeper"))
        let chain = try #require(parseError((0..<10_000).map { "a\($0)" }.joined(separator: " ?? ")))
        #expect(chain.message.contains("nested deeper"))
    }

    @Test func nestingWithinTheLimitStillParses() {
        let text = String(repeating: "(", count: 60) + "a = 1" + String(repeating: ")", count: 60)
        #expect(parseError(text) == nil)
        #expect(parseError("!!!a ?? b ?? c") == nil)
    }

    /// A rule may list any number of actions, and a condition any number of `and` or `or` terms:
    /// none is nesting, so none is refused, and running them must not recurse once per action or
    /// term.
    @Test func longActionListsAndTermChainsRunOnASmallStack() async throws {
        try await offThePool {
            let count = 50_000
            let actions = (0..<count).map { "set properties.a\($0) = 1" }.joined(separator: "\n")
            let terms = (0..<count).map { "properties.price > -\($0)" }.joined(separator: " and ")
            let alternatives = (0..<count).map { "event = \"E\($0)\"" }.joined(separator: " or ")
            let text = "rule \"many\" {\n\(actions)\n}\nrule \"and\" { when \(terms)\n set properties.all = true }\n"
                + "rule \"or\" { when \(alternatives)\n set properties.any = true }\n"
            let rules = try RuleTextParser.parse(text)
            let event = Event(type: .track, userId: "u", event: "E\(count - 1)", properties: ["price": 5])
            let output = SmallStack.run { rules.apply(to: event) }
            #expect(output?.properties?.count == count + 3)
            #expect(output?.properties?["all"] == true)
            #expect(output?.properties?["any"] == true)
        }
    }

    @Test func ruleTextWithDeepNestingFailsToLoadWithItsLine() {
        let error = SmallStack.run { () -> RuleParseError? in
            do {
                _ = try RuleTextParser.parse("rule \"deep\"\n  when " + String(repeating: "(", count: 5_000) + "\n  drop\n")
                return nil
            } catch {
                return error as? RuleParseError
            }
        }
        #expect(error?.line == 2)
    }

    @Test func deepSegmentIRIsAnError() {
        var ir: JSON = "properties.x"
        for _ in 0..<100 { ir = ["!", ir] }
        let settings: JSON = ["routingRules": [["matchers": [["type": "fql", "ir": .string(JSONWriter.string(ir))]], "transformers": [[["type": "drop"]]]]]]
        let message: String? = SmallStack.run {
            do {
                _ = try SegmentRoutingRules.load(settings)
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(message?.contains("nested deeper") == true)
    }

    @Test func deepJSONIsAnErrorOnASmallStack() {
        for depth in [130, 100_000] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let failed: Bool = SmallStack.run {
                (try? JSONParser.parse(text)) == nil
            }
            #expect(failed)
        }
        let within = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        let parsed: Bool = SmallStack.run { (try? JSONParser.parse(within)) != nil }
        #expect(parsed)
    }

    @Test func deepCallerValuesAreDroppedOnASmallStack() {
        let result = SmallStack.run { () -> [String: JSON] in
            var value: Any = "leaf"
            for _ in 0..<1_000 { value = [value] }
            let converted = ValueConverter.convert(["deep": value, "kept": 1], root: "properties")
            return converted.issues.count == 1 ? converted.value : [:]
        }
        #expect(result["kept"] == 1)
    }

    /// A document expression only code can build this deep evaluates as missing past its limit,
    /// on a small stack, instead of recursing on.
    @Test func aDeepExpressionTreeEvaluatesAsMissingOnASmallStack() {
        let result = SmallStack.run { () -> Bool in
            var expression = Expression.literal(true)
            for _ in 0..<300 { expression = .not(.not(expression)) }
            let deep = DocumentExpression(expression)
            let shallow = DocumentExpression(.not(.not(.literal(true))))
            return deep.value(in: ["a": 1]) == .bool(false) && shallow.matches(["a": 1])
        }
        #expect(result)
    }
}
