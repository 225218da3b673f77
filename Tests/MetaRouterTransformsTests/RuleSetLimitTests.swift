import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

/// A valid but pathological rule set is refused at load, with the limit it broke; globs match
/// in time linear in the text.
@Suite struct RuleSetLimitTests {
    private func rules(_ count: Int, pattern: String = "Button *") -> String {
        (0..<count).map { "rule \"r\($0)\" { when match(event, \"\(pattern)\") drop }" }.joined(separator: "\n")
    }

    @Test func tooManyRulesAreRefused() throws {
        #expect(throws: Never.self) { try RuleSetLoader.load(rules(RuleSetLimits.maxRules)) }
        #expect {
            try RuleSetLoader.load(rules(RuleSetLimits.maxRules + 1))
        } throws: { error in
            "\(error)".contains("1001 rules, above the limit of 1000")
        }
    }

    @Test func aManyStarOrLongGlobIsRefusedInEveryFormat() throws {
        let stars = String(repeating: "a*", count: 17)
        #expect { try RuleSetLoader.load(rules(1, pattern: stars)) } throws: { "\($0)".contains("17 '*'") }
        let long = String(repeating: "x", count: 257)
        #expect { try RuleSetLoader.load(rules(1, pattern: long)) } throws: { "\($0)".contains("257 characters") }
        let json = #"{"rules":[{"name":"deep","when":"!(!(match(event, \"\#(stars)\")))","actions":[{"drop":true}]}]}"#
        #expect { try RuleSetLoader.load(json) } throws: { "\($0)".contains("17 '*'") }
        let segment = #"{"routingRules":[{"matchers":[{"ir":"[\"glob\",\"event\",{\"value\":\"\#(stars)\"}]","type":"fql"}],"transformers":[[{"type":"drop"}]]}]}"#
        if let loaded = try? RuleSetLoader.load(segment) {
            Issue.record("a Segment glob beyond the limit loaded: \(loaded.rules.count) rule(s)")
        }
        #expect(throws: Never.self) { try RuleSetLoader.load(rules(1, pattern: String(repeating: "a*", count: 16))) }
    }

    /// The byte path (ASCII, `*` only) and the character path agree on long texts that almost
    /// match, the case where a naive search backtracks most.
    @Test func globsAgreeOnLongNearMisses() {
        let text = String(repeating: "ab", count: 2_500) + "c"
        for pattern in ["*ab*ab*c", "*abc*", "*b*b*b*d", "a*" + String(repeating: "b*", count: 14) + "c", "*a?c", "*[a]bc"] {
            let compiled = Glob.compile(pattern)(text)
            let general = Glob.matches(text, pattern: pattern)
            #expect(compiled == general, "\(pattern)")
        }
        #expect(Glob.compile("*ab*ab*c")(text))
        #expect(!Glob.compile("*b*b*b*d")(text))
        #expect(Glob.compile("*abc")(text))
    }
}
