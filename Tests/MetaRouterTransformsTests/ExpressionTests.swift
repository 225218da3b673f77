import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

private let order = Event(
    type: .track, anonymousId: "anon-1", userId: "User-42", event: "Order Completed",
    properties: [
        "total": 120, "price": 19.99, "currency": "EUR", "coupon": .null, "tags": ["sale", "dark-mode"],
        "product": ["name": "Trail Shoe", "sku": "SHOE-1"], "product name": "spaced", "count": 1.0,
    ],
    context: ["device": ["type": "ios"]])

private func matches(_ text: String, _ event: Event = order) throws -> Bool {
    Evaluator.condition(try ExpressionParser.parse(text))(event, .none)
}

private func value(_ text: String, _ event: Event = order) throws -> JSON? {
    Evaluator.compile(try ExpressionParser.parse(text))(event, .none)
}

@Suite struct ExpressionTests {
    @Test(arguments: [
        ("event = \"Order Completed\"", true), ("event = 'Order Completed'", true), ("event != \"x\"", true),
        ("properties.total > 100", true), ("properties.total >= 120", true), ("properties.total < 120", false),
        ("properties.total <= 120.0", true), ("properties.price > 19.98 and properties.price < 20", true),
        ("properties.count = 1", true), ("properties.total = \"120\"", false), ("properties.currency < \"F\"", false),
        ("properties.currency in [\"USD\", \"EUR\"]", true), ("\"dark-mode\" in properties.tags", true),
        ("properties.product.sku = \"SHOE-1\"", true), ("properties.product\\ name = \"spaced\"", true),
        ("properties.coupon = null", true), ("properties.missing = null", true), ("properties.missing != null", false),
        ("exists(properties.coupon)", true), ("exists(properties.missing)", false),
        ("!(event = \"x\")", true), ("!event = \"x\"", false), ("type = \"track\" and userId = \"User-42\" or false", true),
        ("false or true and false", false), ("(false or true) and true", true),
        ("contains(event, \"Complete\")", true), ("contains(properties.tags, \"sale\")", true), ("contains(null, \"x\")", false),
        ("match(event, \"Order *\")", true), ("match(event, \"order *\")", false), ("match(event, \"Order C?mpleted\")", true),
        ("match(properties.currency, \"[A-F]UR\")", true), ("match(properties.currency, \"[^E]UR\")", false),
        ("match(\"a*b\", \"a\\\\*b\")", true), ("match(\"ab\", \"a\\\\*b\")", false), ("match(event, \"[abc\")", false),
        ("match(null, \"*\")", false),
        ("length(properties.tags) = 2", true), ("length(event) = 15", true), ("length(properties.missing) = 0", true),
        ("lowercase(userId) = \"user-42\"", true), ("uppercase(properties.currency) = \"EUR\"", true),
        ("contains(lowercase(userId), \"user\")", true), ("lowercase(properties.missing) = null", true),
        ("typeof(properties.total) = \"number\"", true), ("typeof(properties.tags) = \"list\"", true),
        ("typeof(properties.coupon) = \"null\"", true), ("typeof(properties.product) = \"object\"", true),
        ("number(\"12.5\") = 12.5", true), ("string(properties.total) = \"120\"", true), ("bool(1) = true", true),
        ("snakecase(\"Order Completed\") = \"order_completed\"", true), ("kebabcase(\"orderCompleted\") = \"order-completed\"", true),
        ("titlecase(\"order completed\") = \"Order Completed\"", true), ("android = null", true),
("userId ?? anonymousId = \"User-42\"", true),
        ("groupId ?? anonymousId = \"anon-1\"", true), ("context.device.type in [\"ios\", \"android\"]", true),
    ] as [(String, Bool)])
    func evaluates(_ text: String, _ expected: Bool) throws {
        #expect(try matches(text) == expected, "\(text)")
    }

    @Test func onlyExactlyTrueMatches() throws {
        let event = Event(type: .track, event: "x", properties: ["flag": "true", "yes": true])
        #expect(try matches("properties.flag", event) == false)
        #expect(try matches("properties.yes", event) == true)
    }

    @Test func computedValues() throws {
        #expect(try value("concat(lowercase(event), \":\", properties.product.sku, \":\", properties.total)") == "order completed:SHOE-1:120")
        #expect(try value("groupId ?? userId ?? anonymousId") == "User-42")
        #expect(try value("properties.missing") == nil)
        #expect(try value("[1, \"a\", properties.total]") == [1, "a", 120])
    }

    @Test(arguments: [
        ("event = ", 1, 9, "expected a value"), ("(event = \"a\"", 1, 13, "expected \")\""),
        ("event = \"a\" and", 1, 16, "expected a value"), ("frobnicate(event)", 1, 1, "unknown function \"frobnicate\""),
        ("contains(event)", 1, 1, "contains takes 2 argument(s), found 1"), ("event = \"unterminated", 1, 22, "unterminated string"),
        ("event = 'a' extra", 1, 13, "expected an operator or the end"), ("event @ 1", 1, 7, "unexpected character \"@\""),
        ("[1, 2", 1, 6, "expected \",\" or \"]\""), ("event = a\\", 1, 10, "must be followed"), ("event =\n  and", 2, 3, "expected a value, found \"and\""),
    ] as [(String, Int, Int, String)])
    func rejectsWithLineAndColumn(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        do {
            _ = try ExpressionParser.parse(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.line == line, "\(text): \(error)")
            #expect(error.column == column, "\(text): \(error)")
            #expect(error.message.contains(message), "\(text): \(error)")
        }
    }
}

@Suite struct GlobTests {
    @Test func compiledMatchersAgreeWithTheGeneralMatcher() {
        let patterns = ["*", "Button *", "*Clicked", "a*b*c", "**", "", "abc", "a*", "*a*", "Order * Completed", "x?y", "[a-c]*", "a\\*b"]
        let texts = ["", "a", "abc", "Button Clicked", "Button", "aXbYc", "acb", "Order Big Completed", "Order Completed", "xzy", "bcd", "a*b", "ab"]
        for pattern in patterns {
            let compiled = Glob.compile(pattern)
            for text in texts {
                #expect(compiled(text) == Glob.matches(text, pattern: pattern), "\(pattern) vs \(text)")
            }
        }
    }

    /// The general matcher agrees with a plain recursive definition of glob matching on random
    /// patterns with every token kind, and decides long text on a small stack.
    @Test func generalMatcherAgreesWithTheDefinition() {
        let tokens = ["a", "b", "é", "*", "?", "[ab]", "[^a]", "[a-c]", "\\*", "\\a", "[", "\\"]
        let letters: [Character] = ["a", "b", "c", "é", "*", "["]
        var generator = SeededGenerator(seed: 0x6578_7031)
        for _ in 0..<3_000 {
            let pattern = (0..<Int.random(in: 0...5, using: &generator)).map { _ in tokens.randomElement(using: &generator)! }.joined()
            let text = String((0..<Int.random(in: 0...6, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            let expected = goWellFormed(Array(pattern)) && definition(Array(text), Array(pattern))
            #expect(Glob.matches(text, pattern: pattern) == expected, "\(pattern) vs \(text)")
        }
        let long = String(repeating: "é", count: 200_000) + "x"
        let results = SmallStack.run { [Glob.matches(long, pattern: "*x"), Glob.compile("é*é?")(long), Glob.compile("*y*")(long)] }
        #expect(results == [true, true, false])
    }

    /// Malformed patterns match nothing, as Go's `path.Match` (which Segment's engine ports)
    /// rejects them; the escaped forms of the same characters work. (Cases from
    /// segmentio/tsub-js `src/__tests__/matchers.test.ts`, glob section.)
    @Test func malformedPatternsMatchNothingAndEscapesWork() {
        for pattern in ["[]a]", "[-]", "[x-]", "[-x]", "[a-b-c]", "[", "[a", "ab\\", "[^]", "[a-"] {
            for text in ["]", "a", "-", "x", "b", "c", "", "ab\\", "[", "[a"] {
                #expect(!Glob.matches(text, pattern: pattern), "\(pattern) matched \(text)")
                #expect(!Glob.compile(pattern)(text), "\(pattern) compiled matched \(text)")
            }
        }
        let escaped: [(pattern: String, matching: [String], notMatching: [String])] = [
            ("[\\]a]", ["]", "a"], ["b", "\\"]), ("[\\-x]", ["-", "x"], ["a"]), ("[x\\-]", ["x", "-"], ["a"]),
            ("a\\*", ["a*"], ["ab"]), ("[a-c]", ["b"], ["d"]), ("[^a-c]", ["d"], ["b"]),
        ]
        for (pattern, matching, notMatching) in escaped {
            for text in matching { #expect(Glob.compile(pattern)(text), "\(pattern) vs \(text)") }
            for text in notMatching { #expect(!Glob.compile(pattern)(text), "\(pattern) vs \(text)") }
        }
    }

    /// Go's `path.Match` grammar, written out as the test's own reference: outside a class `\`
    /// needs a character after it; a class holds at least one member or range, each member a
    /// character other than `-` and `]` (or any escaped one), and is closed.
    private func goWellFormed(_ pattern: [Character]) -> Bool {
        var rest = pattern[...]
        func member() -> Bool {
            guard let first = rest.first, first != "-", first != "]" else { return false }
            rest = rest.dropFirst(first == "\\" ? 2 : 1)
            return !rest.isEmpty
        }
        while let token = rest.popFirst() {
            if token == "\\" {
                guard rest.popFirst() != nil else { return false }
            } else if token == "[" {
                if rest.first == "^" { rest = rest.dropFirst() }
                var count = 0
                while !(rest.first == "]" && count > 0) {
                    guard member() else { return false }
                    if rest.first == "-" {
                        rest = rest.dropFirst()
                        guard member() else { return false }
                    }
                    count += 1
                }
                rest = rest.dropFirst()
            }
        }
        return true
    }

    /// Glob matching as the specification states it, recursively: for short inputs only.
    private func definition(_ text: [Character], _ pattern: [Character]) -> Bool {
        guard let token = pattern.first else { return text.isEmpty }
        switch token {
        case "*":
            return (0...text.count).contains { definition(Array(text.dropFirst($0)), Array(pattern.dropFirst())) }
        case "?":
            return !text.isEmpty && definition(Array(text.dropFirst()), Array(pattern.dropFirst()))
        case "[":
            guard let close = pattern.dropFirst(2).firstIndex(of: "]") else { return false }
            guard let character = text.first else { return false }
            var members = Array(pattern[1..<close])
            let negated = members.first == "^"
            if negated { members.removeFirst() }
            var inClass = false
            var index = 0
            while index < members.count {
                var low = members[index]
                if low == "\\", index + 1 < members.count {
                    index += 1
                    low = members[index]
                }
                var high = low
                if index + 2 < members.count, members[index + 1] == "-" {
                    high = members[index + 2]
                    index += 2
                }
                if low <= character, character <= high { inClass = true }
                index += 1
            }
            return inClass != negated && definition(Array(text.dropFirst()), Array(pattern[(close + 1)...]))
        case "\\" where pattern.count > 1:
            return text.first == pattern[1] && definition(Array(text.dropFirst()), Array(pattern.dropFirst(2)))
        default:
            return text.first == token && definition(Array(text.dropFirst()), Array(pattern.dropFirst()))
        }
    }

    /// Plain ASCII text is matched byte by byte; anything else (accents, `\r\n`, which is one
    /// character of two bytes) by characters. Both must agree with the general matcher.
    @Test func byteAndCharacterMatchingAgreeOnRandomPatterns() {
        let alphabet: [String] = ["a", "b", "ab", "é", "\r", "\n", "\r\n", " ", "e\u{301}"]
        var generator = SeededGenerator(seed: 0x6578_7032)
        for _ in 0..<3_000 {
            let pattern = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                Bool.random(using: &generator) ? "*" : alphabet.randomElement(using: &generator)!
            }.joined()
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }.joined()
            #expect(Glob.compile(pattern)(text) == Glob.matches(text, pattern: pattern), "\(pattern.debugDescription) vs \(text.debugDescription)")
        }
    }
}
