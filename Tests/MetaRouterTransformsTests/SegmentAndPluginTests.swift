import Foundation
import MetaRouter
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

private func segment(_ rules: String) throws -> RuleSet {
    try RuleSetLoader.load(#"{"integrations": {}, "middlewareSettings": {"routingRules": "# + rules + #"}}"#)
}

private func track(_ name: String = "Order Completed", _ properties: [String: JSON] = [:], userId: String? = "u1") -> Event {
    Event(type: .track, anonymousId: "a1", userId: userId, event: name, properties: properties)
}

@Suite struct SegmentCompatibilityTests {
    @Test func documentedPayloadDropsByIR() throws {
        let rules = try segment(#"""
            [{"matchers": [{"type": "fql", "ir": "[\"=\",\"event\",{\"value\":\"Order Completed\"}]",
                            "config": {"expr": "event = \"Order Completed\""}}],
              "transformers": [[{"type": "drop"}]], "destinationName": "Google Analytics"}]
            """#)
        #expect(RuleSetLoader.detect(#"{"middlewareSettings": {"routingRules": []}}"#) == .segment)
        #expect(rules.apply(to: track(), destination: "Google Analytics") == nil)
        #expect(rules.apply(to: track(), destination: "Amplitude") != nil)
        #expect(rules.apply(to: track(), destination: nil) != nil)
        #expect(rules.apply(to: track("Other"), destination: "Google Analytics") != nil)
    }

    @Test func irOperatorsAndLiterals() throws {
        func matches(_ ir: String, _ event: Event) throws -> Bool {
            let escaped = ir.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            let set = try segment(#"[{"matchers": [{"type": "fql", "ir": "\#(escaped)"}], "transformers": [[{"type": "drop"}]]}]"#)
            return set.apply(to: event) == nil
        }
        let event = track("Order Completed", ["total": 120, "currency": "EUR", "email": "A@B.COM", "features": ["dark-mode"]])
        #expect(try matches(#"["and", ["=", "type", {"value": "track"}], [">", "properties.total", {"value": 100}]]"#, event))
        #expect(try matches(#"["or", ["=", "event", {"value": "x"}], ["in", "properties.currency", {"value": [{"value": "USD"}, {"value": "EUR"}]}]]"#, event))
        #expect(try matches(#"["!", ["=", "event", {"value": "x"}]]"#, event))
        #expect(try matches(#"["contains", ["lowercase", "properties.email"], {"value": "a@b"}]"#, event))
        #expect(try matches(#"["in", {"value": "dark-mode"}, "properties.features"]"#, event))
        #expect(try matches(#"["match", "event", {"value": "Order *"}]"#, event))
        #expect(try matches(#"["=", ["typeof", "properties.total"], {"value": "number"}]"#, event))
        #expect(try matches(#"["=", ["length", "properties.missing"], {"value": 0}]"#, event))
        #expect(try !matches(#"["=", "properties.total", {"value": "120"}]"#, event))
        #expect(try !matches(#"["<", "properties.currency", {"value": 5}]"#, event))
        #expect(try matches(#""properties.flag""#, track("x", ["flag": true])))
        #expect(try !matches(#""properties.flag""#, track("x", ["flag": "true"])))
    }

    @Test func emptyIRMatchesNothingAndAllMatchesEverything() throws {
        let set = try segment(#"""
            [{"matchers": [{"type": "fql", "ir": ""}, {"type": "all"}],
              "transformers": [[{"type": "drop"}], [{"type": "drop_properties", "config": {"drop": {"properties": ["secret"]}}}]]}]
            """#)
        #expect(set.apply(to: track("x", ["secret": 1, "ok": 2]))?.properties == ["ok": 2])
    }

    @Test func propertyTransformersIncludingArrays() throws {
        let set = try segment(#"""
            [{"matchers": [{"type": "all"}], "transformers": [[
                {"type": "drop_properties", "config": {"drop": {"properties.products": ["cost"]}}},
                {"type": "allow_properties", "config": {"allow": {"context": ["app"]}}},
                {"type": "hash_properties", "config": {"hash": {"properties": ["email"]}}}
            ]]}]
            """#)
        var input = track("x", ["products": [["id": 1, "cost": 2], ["id": 3, "cost": 4]], "email": "e"])
        input.context = ["app": ["name": "a"], "ip": "1.2.3.4"]
        let output = try #require(set.apply(to: input))
        #expect(output.properties == ["products": [["id": 1], ["id": 3]], "email": "e"])
        #expect(output.context == ["app": ["name": "a"]])
        let empty = try segment(#"[{"matchers": [{"type": "all"}], "transformers": [[{"type": "allow_properties", "config": {"allow": {"properties": []}}}]]}]"#)
        #expect(empty.apply(to: track("x", ["a": 1]))?.properties == [:])
    }

    @Test func mapPropertiesReadsTheEventBeforeTheStep() throws {
        let set = try segment(#"""
            [{"matchers": [{"type": "all"}], "transformers": [[{"type": "map_properties", "config": {"map": {
                "properties.a.b": {"set": 2}, "properties.a.c": {"copy": "properties.a.b"},
                "properties.moved": {"move": "properties.old"}, "properties.n": {"copy": "properties.num", "to_string": true},
                "properties.nothing": {"copy": "properties.missing"}, "properties.no.parent": {"set": 1},
                "properties.zero": {"set": 0}, "properties.nul": {"set": null}
            }}}]]}]
            """#)
        let output = try #require(set.apply(to: track("x", ["a": ["b": 1], "old": "o", "num": 1234])))
        #expect(output.properties?["a"] == ["b": 2, "c": 1])
        #expect(output.properties?["moved"] == "o")
        #expect(output.properties?["old"] == nil)
        #expect(output.properties?["n"] == "1234")
        #expect(output.properties?["nothing"] == nil)
        #expect(output.properties?["no"] == nil)
        #expect(output.properties?["zero"] == 0)
        #expect(output.properties?["nul"] == .null)
    }

    @Test func sampleEventPercentIsAFraction() throws {
        let none = try segment(#"[{"matchers": [{"type": "all"}], "transformers": [[{"type": "sample_event", "config": {"sample": {"percent": 0, "path": "userId"}}}]]}]"#)
        let all = try segment(#"[{"matchers": [{"type": "all"}], "transformers": [[{"type": "sample_event", "config": {"sample": {"percent": 1}}}]]}]"#)
        #expect(none.apply(to: track()) == nil)
        #expect(all.apply(to: track()) != nil)
    }

    @Test(arguments: [
        #"[{"matchers": [{"type": "regex"}], "transformers": [[]]}]"#,
        #"[{"matchers": [{"type": "all"}], "transformers": [[{"type": "explode"}]]}]"#,
        #"[{"matchers": [{"type": "fql", "ir": "not json"}], "transformers": [[]]}]"#,
        #"[{"matchers": [{"type": "fql", "ir": "[\"frob\", \"event\"]"}], "transformers": [[]]}]"#,
        #"[{"matchers": [{"type": "all"}], "transformers": []}]"#,
        // segmentio/tsub-js transformers.test.ts: a sample_event without its config fails there.
        #"[{"matchers": [{"type": "all"}], "transformers": [[{"type": "sample_event"}]]}]"#,
        #"[{"matchers": [{"type": "all"}], "transformers": [[{"type": "sample_event", "config": {}}]]}]"#,
    ])
    func rejectsWhatSegmentWouldNotRun(_ rules: String) {
        #expect(throws: RuleLoadError.self) { _ = try segment(rules) }
    }
}

/// The transform plugin as an app uses it: added to an `Analytics` instance, its rules replaced
/// through `replaceRules(named:with:)`.
@Suite struct TransformPluginTests {
    private func instance(
        _ plugins: [any Plugin], capture: CapturingDestination = CapturingDestination(), logs: RecordingLogSink = RecordingLogSink()
    ) -> Analytics {
        let analytics = Analytics.capturing(into: capture) { $0.logSink = logs }
        for plugin in plugins { analytics.add(plugin: plugin) }
        return analytics
    }

    @Test func perDestinationScope() async throws {
        let rules = try RuleTextParser.parse("rule { delete properties.email }")
        let partner = CapturingDestination(key: "Partner")
        partner.timeline.add(TransformPlugin(ruleSet: rules, destinationKey: "Partner"))
        let inHouse = CapturingDestination(key: "InHouse")
        let analytics = instance([partner, inHouse])
        analytics.track("Signed Up", properties: ["email": "a@b.c"])
        await analytics.performAndWait { _ in }
        #expect(partner.events.first?.properties == [:])
        #expect(inHouse.events.first?.properties == ["email": "a@b.c"])
        await analytics.shutdown()
    }

    @Test func failingRuleIsLoggedOnceByName() async throws {
        let logs = RecordingLogSink()
        let capture = CapturingDestination()
        let plugin = TransformPlugin(ruleSet: try RuleTextParser.parse("rule \"nest\" { set properties.price.amount = 1 }"))
        let analytics = instance([plugin], capture: capture, logs: logs)
        for _ in 0..<5 { analytics.track("x", properties: ["price": 3]) }
        await analytics.performAndWait { _ in }
        #expect(capture.events.count == 5)
        #expect(logs.messages(atLeast: .warning).filter { $0.contains("rule \"nest\"") }.count == 1)
        await analytics.shutdown()
    }

    /// Rule sets are swapped while 20k events flow: every event carries the marks of exactly
    /// one version, and versions never go backwards along the stream.
    @Test func runtimeReplacementUnderLoadIsAtomic() async throws {
        func version(_ number: Int) -> String {
            "ruleset \"live\" version \(number)\nrule { set properties.a = \(number)\n set properties.b = \(number) }"
        }
        let capture = CapturingDestination()
        let analytics = instance([TransformPlugin(ruleSet: try RuleSetLoader.load(version(1)))], capture: capture)
        let tracked = Locked(0)
        let producer = Task.detached {
            for index in 0..<20_000 {
                analytics.track("e", properties: ["i": index])
                if index % 400 == 399 { tracked.withLock { $0 = index + 1 } }
            }
        }
        // Each swap waits until the producer is 400 events further: the swaps land across the
        // stream whatever the machine's speed.
        for number in 2...40 {
            try analytics.replaceRules(named: "live", with: version(number))
            while tracked.current < (number - 1) * 400 { await Task.yield() }
        }
        #expect(throws: RuleLoadError.self) { try analytics.replaceRules(named: "live", with: "rule { set = }") }
        try analytics.replaceRules(named: "live", with: version(3))
        await producer.value
        await analytics.performAndWait { _ in }
        let marks = capture.events.map { ($0.properties?["a"]?.int64Value ?? -1, $0.properties?["b"]?.int64Value ?? -2) }
        #expect(marks.count == 20_000)
        #expect(marks.allSatisfy { $0.0 == $0.1 })
        #expect(zip(marks, marks.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        let finalVersion = await analytics.performAndWait { $0.find(TransformPlugin.self)?.ruleSet.version }
        #expect(finalVersion == 40)
        await analytics.shutdown()
    }

    @Test func fuzzedRulesAndEventsNeverCrash() async throws {
        try await offThePool {
            var random = SeededGenerator(seed: 0x6675_7a7a)
            let fragments = ["rule", "{", "}", "when", "event", "=", "\"x\"", "and", "or", "!", "(", ")", "[", "]", ",", "set", "properties.a",
                             "move", "to", "sample", "10", "%", "by", "drop", "allow", ":", "contains(", "match(", "length(", "??", "1.5",
                             "null", "true", "'y'", "\\", "#c\n", "\n", "-5", "in", "delete", "to_string", "ruleset", "version", "fail", "closed",
                             "only", "track", "$", "->", "concat(", "typeof(", "\u{1F600}", "\"unterminated"]
            let seeds = ["rule { when event = \"x\" and properties.a > 1 set properties.b = concat(event, \"!\") }",
                         "rule { move properties.a to context.b\n allow properties.items: [a]\n sample 50% by userId }"]
            let events: [Event] = [
                Event(type: .track, event: "x", properties: ["a": 2, "items": [["a": 1, "b": 2]], "n": .null]),
                Event(type: .identify, userId: "u", traits: ["a": ["b": ["c": [1, 2, 3]]]]),
                Event(type: .screen, name: "S", properties: ["a": "text", "b": 1.5]),
            ]
            // A fixed minimum of attempts whatever the machine's speed (under ThreadSanitizer, with
            // the other suites starting beside it, two seconds once held only a dozen), then more
            // while two seconds last.
            let minimumAttempts = 300
            let deadline = Date().addingTimeInterval(2)
            var parsed = 0
            var attempts = 0
            while attempts < minimumAttempts || (Date() < deadline && attempts < 50_000) {
                attempts += 1
                var text: String
                if Bool.random(using: &random) {
                    text = (0..<Int.random(in: 1...30, using: &random)).map { _ in fragments.randomElement(using: &random) ?? "" }.joined(separator: " ")
                } else {
                    var characters = Array(seeds.randomElement(using: &random) ?? "")
                    for _ in 0..<Int.random(in: 1...4, using: &random) where !characters.isEmpty {
                        let index = Int.random(in: 0..<characters.count, using: &random)
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0: characters.remove(at: index)
                        case 1: characters.insert(characters[Int.random(in: 0..<characters.count, using: &random)], at: index)
                        default: characters[index] = Character(fragments.randomElement(using: &random)?.first.map(String.init) ?? "x")
                        }
                    }
                    text = String(characters)
                }
                guard let set = try? RuleSetLoader.load(text) else { continue }
                parsed += 1
                for event in events { _ = set.apply(to: event, destination: "d") }
            }
            #expect(parsed > 0)
        }
    }
}
