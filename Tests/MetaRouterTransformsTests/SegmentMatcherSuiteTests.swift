import MetaRouterCore
import Testing

@testable import MetaRouterTransforms

/// The rest of Segment's own matcher cases (the `match()` table is `SegmentMatchSuiteTests`), as
/// our test. Source: segmentio/tsub-js, `src/__tests__/matchers.test.ts`, commit
/// 64c100ccd60d830f751f46c9c837f9a5ae486a84. Each case is an IR as Segment's settings carry it,
/// the event it runs on, and whether it matches; a match drops the event (a `drop`
/// transformer). The cases that put a field of their own at the top of the event (`email`,
/// `trueValue`) read it from `properties`, where an SDK event keeps the caller's fields.
@Suite struct SegmentMatcherSuiteTests {
    private static let simple = Event(type: .track, event: "Order Completed", properties: ["total": 42])

    private func rules(ir: String, type: String = "fql") throws -> RuleSet {
        let settings: JSON = .array([.object([
            "matchers": .array([.object(["type": .string(type), "ir": .string(ir)])]),
            "transformers": .array([.array([.object(["type": "drop"])])]),
        ])])
        return try RuleSetLoader.load(settings.description, format: .segment)
    }

    private func matches(_ ir: String, type: String = "fql", on event: Event = simple) throws -> Bool {
        try rules(ir: ir, type: type).apply(to: event) == nil
    }

    private func event(name: String = "Order Completed", _ properties: [String: JSON]) -> Event {
        Event(type: .track, event: name, properties: properties)
    }

    @Test func badMatchersAreRefusedAtLoadAndEmptyOnesFollowTheirType() throws {
        #expect(throws: RuleLoadError.self) { try rules(ir: #"Invalid//**[]""""json"#) }
        #expect(throws: RuleLoadError.self) { try rules(ir: "true", type: "it's free real estate") }
        #expect(throws: RuleLoadError.self) { try rules(ir: #"["findTheDefiniteIntegralOf", {"value": "2x+47"}, {"value": "Bounded from 1 to 3"}]"#) }
        #expect(try matches("", type: "all"))
        #expect(try !matches(""))
    }

    @Test func pathsValuesAndNonBooleanResults() throws {
        let many = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("p\($0)", JSON.int(Int64($0))) })
        #expect(try matches(#""properties.trueValue""#, on: event(many.merging(["trueValue": true]) { $1 })))
        #expect(try matches(#""properties.trueValue""#, on: event(["trueValue": true])))
        #expect(try matches(#"{"value": true}"#))
        #expect(try !matches(#""properties.stringValue""#, on: event(["stringValue": "true"])))
        #expect(try matches(#"{"value":true}"#))
        #expect(try !matches(#"{"value":false}"#))
    }

    @Test func functions() throws {
        let contains = #"["contains", "properties.email", {"value": ".com"}]"#
        #expect(try matches(contains, on: event(["email": "test@test.com"])))
        #expect(try !matches(contains, on: event(["email": "test@test.org"])))
        #expect(try matches(#"["=", {"value": "test"}, ["lowercase", {"value": "TEST"}]]"#))
        #expect(try !matches(#"["=", {"value": "TEST"}, ["lowercase", {"value": "TEST"}]]"#))
        #expect(try matches(#"["=", {"value": 4}, ["length", {"value": "TEST"}]]"#))
        #expect(try !matches(#"["=", {"value": 5}, ["length", {"value": "TEST"}]]"#))
        #expect(try matches(#"["=", {"value": "boolean"}, ["typeof", {"value": true}]]"#))
        #expect(try !matches(#"["=", {"value": "boolean"}, ["typeof", {"value": "str"}]]"#))
    }

    @Test func arraysNumbersAndBooleanOperators() throws {
        let cases: [(String, Bool)] = [
            (#"["=",{"value":[]},{"value":[]}]"#, true),
            (#"["=",{"value":[{"value":1}]},{"value":[{"value":1}]}]"#, true),
            (#"["=",{"value":[{"value":1}, {"value":2}]},{"value":[{"value":1}, {"value":2}]}]"#, true),
            (#"["=",{"value":[{"value":1}, {"value":2}]},{"value":[{"value":2}, {"value":1}]}]"#, false),
            (#"["=",{"value":0},{"value":0}]"#, true), (#"["=",{"value":0},{"value":1}]"#, false),
            (#"["!=",{"value":5},{"value":6}]"#, true), (#"["!=",{"value":7},{"value":7}]"#, false),
            (#"["<=",{"value":5},{"value":6}]"#, true), (#"["<=",{"value":6},{"value":6}]"#, true),
            (#"["<=",{"value":7},{"value":6}]"#, false),
            (#"[">=",{"value":5},{"value":6}]"#, false), (#"[">=",{"value":6},{"value":6}]"#, true),
            (#"[">=",{"value":7},{"value":6}]"#, true),
            (#"["<",{"value":5},{"value":6}]"#, true), (#"["<",{"value":6},{"value":6}]"#, false),
            (#"[">",{"value":6},{"value":6}]"#, false), (#"[">",{"value":7},{"value":6}]"#, true),
            (#"["and",{"value":true},{"value":true},{"value":true}]"#, true),
            (#"["and",{"value":true},{"value":true},{"value":false}]"#, false),
            (#"["or",{"value":false},{"value":false},{"value":true}]"#, true),
            (#"["or",{"value":false},{"value":false},{"value":false}]"#, false),
            (#"["and",["or",{"value":false},{"value":true}],{"value":true}]"#, true),
        ]
        for (ir, expected) in cases { #expect(try matches(ir) == expected, "\(ir)") }
    }

    @Test func inLists() throws {
        let list = #"{"value": [{"value": "event"}, {"value": "str"}]}"#
        #expect(try matches(#"["in", {"value": "event"}, \#(list)]"#))
        #expect(try matches(#"["in", {"value": "str"}, \#(list)]"#))
        #expect(try !matches(#"["in", {"value": "blah"}, \#(list)]"#))
        let names = #"["in", "event", {"value": [{"value": "Clicked"}, {"value": "Viewed"}]}]"#
        #expect(try matches(names, on: event(name: "Clicked", [:])))
        #expect(try !matches(names, on: event(name: "Blah", [:])))
        #expect(try matches(#"["in", {"value": 10}, {"value": [{"value": "Clicked"}, {"value": 10}]}]"#, on: event(name: "Blah", [:])))
        // A bare string in the IR is a path, in a list literal too: "track" is in [event, type]
        // because `type` is "track".
        #expect(try matches(#"["in", {"value": "track"}, {"value": ["event", "type"]}]"#, on: event(name: "Blah", [:])))
        #expect(try !matches(#"["in", {"value": "track"}, {"value": []}]"#))
        #expect(try !matches(#"["in", {"value": null}, {"value": [{"value": "Clicked"}, {"value": 10}]}]"#, on: event(name: "Blah", [:])))
    }
}
