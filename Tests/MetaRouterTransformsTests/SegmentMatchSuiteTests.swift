import MetaRouterCore
import Testing

@testable import MetaRouterTransforms

/// Segment's own `match()` cases, as our test. Source: segmentio/tsub-js,
/// `src/__tests__/matchers.test.ts` ("match() works" and its `matcherTests` table), commit
/// 64c100ccd60d830f751f46c9c837f9a5ae486a84. Each case is (pattern, text, whether it matches);
/// there the pattern and text pass through a JavaScript string and a JSON string, so
/// `'a\\\\*b'` there is `a\*b` here. Every case runs the way Segment's engine runs it: a
/// destination-filter matcher whose IR is `["match", {"value": text}, {"value": pattern}]`,
/// loaded from Segment settings, with a `drop` transformer — a match drops the event.
@Suite struct SegmentMatchSuiteTests {
    static let cases: [(pattern: String, text: String, matches: Bool)] = [
        ("abc", "abc", true), ("*", "abc", true), ("*c", "abc", true), ("*b", "abc", false),
        ("a*", "a", true), ("a*", "abc", true), ("a*", "ab/c", true), ("a*/b", "abc/b", true),
        ("a*/b", "a/c/b", true), ("a*b*c*d*e*/f", "axbxcxdxe/f", true), ("a*b*c*d*e*/f", "axbxcxdxexxx/f", true),
        ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", true), ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", false),
        ("a*b?c*x", "abxbbxdbxebxczzx", true), ("a*b?c*x", "abxbbxdbxebxczzy", false), ("*a*b*c*", "abcabcabc", true),
        ("ab[c]", "abc", true), ("ab[b-d]", "abc", true), ("ab[e-g]", "abc", false), ("ab[^c]", "abc", false),
        ("ab[^b-d]", "abc", false), ("ab[^e-g]", "abc", true), ("a\\*b", "a*b", true), ("a\\ b", "a b", true),
        ("a\\*b", "ab", false), ("a?b", "a☺b", true), ("a[^a]b", "a☺b", true), ("a???b", "a☺b", false),
        ("a[^a][^a][^a]b", "a☺b", false), ("[a-ζ]*", "α", true), ("*[a-ζ]", "A", false), ("a?b", "a/b", true),
        ("a*b", "a/b", true), ("[\\]a]", "]", true), ("[\\-]", "-", true), ("[x\\-]", "x", true), ("[x\\-]", "-", true),
        ("[x\\-]", "z", false), ("[\\-x]", "x", true), ("[\\-x]", "-", true), ("[\\-x]", "a", false), ("[]a]", "]", false),
        ("[-]", "-", false), ("[x-]", "x", false), ("[x-]", "-", false), ("[x-]", "z", false), ("[-x]", "x", false),
        ("[-x]", "-", false), ("[-x]", "a", false), ("\\", "a", false), ("[a-b-c]", "a", false), ("[", "a", false),
        ("[^", "a", false), ("[^bc", "a", false), ("a[", "a", false), ("a[", "ab", false), ("*x", "xxx", true),
    ]

    private func rules(matching text: String, against pattern: String) throws -> RuleSet {
        let ir: JSON = .array(["match", .object(["value": .string(text)]), .object(["value": .string(pattern)])])
        let settings: JSON = .array([.object([
            "matchers": .array([.object(["type": "fql", "ir": .string(ir.description)])]),
            "transformers": .array([.array([.object(["type": "drop"])])]),
        ])])
        return try RuleSetLoader.load(settings.description, format: .segment)
    }

    @Test func everyCaseOfSegmentsMatchTableAgrees() throws {
        #expect(Self.cases.count == 57)
        var disagreements: [String] = []
        for (pattern, text, matches) in Self.cases {
            let dropped = try rules(matching: text, against: pattern).apply(to: Event(type: .track, event: "x")) == nil
            if dropped != matches { disagreements.append("match(\(text.debugDescription), \(pattern.debugDescription)) gave \(dropped)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    /// The first case of the same test, on an event field: `match("test@test.com", "*.com")`.
    @Test func matchOnALiteral() throws {
        #expect(try rules(matching: "test@test.com", against: "*.com").apply(to: Event(type: .track, event: "x")) == nil)
    }
}
