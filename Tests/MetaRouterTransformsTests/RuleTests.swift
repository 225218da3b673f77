import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

private func event(_ properties: [String: JSON] = [:], name: String = "Order Completed", userId: String? = "u1") -> Event {
    Event(type: .track, anonymousId: "a1", userId: userId, event: name, properties: properties,
          context: ["device": ["advertisingId": "123E4567-E89B-12D3-A456-426614174000", "type": "ios"]])
}

private func run(_ text: String, _ input: Event, destination: String? = nil) throws -> Event? {
    try RuleTextParser.parse(text).apply(to: input, destination: destination)
}

@Suite struct RuleTextTests {
    @Test func parsesEveryConstruct() throws {
        let set = try RuleTextParser.parse("""
            # the seed's LivePlugin examples as rules
            ruleset "mobile" version 7 fail closed

            rule "fix a misnamed property" {
                when type = "track" and exists(properties.productID)
                only track, screen
                move properties.productID to properties.product_id
            }

            rule "everything" {
                set properties.key = userId ?? anonymousId
                set context.label = concat(lowercase(event), "-", properties.sku)
                copy properties.a -> properties.b
                delete context.device.advertisingId
                allow properties.items: [sku, price]
                remove properties: [debug, "internal flag"]
                to_string properties.price
                sample 25% by userId
                sample 50%
                drop
            }
            """)
        #expect(set.name == "mobile")
        #expect(set.version == 7)
        #expect(set.failurePolicy == .closed)
        #expect(set.rules.map(\.name) == ["fix a misnamed property", "everything"])
        #expect(set.rules[0].types == [.track, .screen])
        #expect(set.rules[1].actions.count == 10)
        #expect(set.rules[1].actions[5] == .remove(["properties"], keys: ["debug", "internal flag"]))
        #expect(set.rules[1].actions[7] == .sample(percent: 25, by: ["userId"]))
    }

    @Test(arguments: [
        ("rule {\n  frob x\n}", 2, 3, "expected an action"), ("rule \"a\" {\n  when event =\n}", 3, 1, "expected a value"),
        ("rule {\n  sample 200%\n}", 2, 10, "percentage from 0 to 100"), ("rule {\n  move a\n}", 3, 1, "expected \"to\""),
        ("rules {}", 1, 1, "expected \"rule\""), ("rule {\n  only purchase\n}", 2, 8, "expected an event type"),
        ("rule { allow properties [a] }", 1, 25, "expected \":\""), ("rule { set = 1 }", 1, 12, "expected a field path"),
        ("ruleset x", 1, 9, "rule set name in quotes"),
    ] as [(String, Int, Int, String)])
    func rejectsWithLineColumnAndExpectation(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        do {
            _ = try RuleTextParser.parse(text)
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func seedLivePluginExamplesAsRules() throws {
        let rules = """
            rule "fix a misnamed property" { move properties.productID to properties.product_id }
            rule "no advertising id for one destination" {
                when exists(context.device.advertisingId)
                delete context.device.advertisingId
            }
            """
        let fixed = try #require(try run(rules, event(["productID": "SKU-1"])))
        #expect(fixed.properties == ["product_id": "SKU-1"])
        #expect(fixed.context["device"]?["advertisingId"] == nil)
        #expect(fixed.context["device"]?["type"] == "ios")
    }

    @Test func actionsOnFieldsArraysAndMissingParents() throws {
        let input = event([
            "items": [["sku": "A", "price": 1, "cost": 0.5], ["sku": "B", "price": 2, "cost": 1], "not an object"],
            "price": 12.5, "flag": false, "debug": true,
        ])
        let output = try #require(try run("""
            rule {
                allow properties.items: [sku, price]
                remove properties: [debug]
                to_string properties.price
                to_string properties.flag
                to_string properties.missing
                set context.deep.new.value = 1
                set properties.user = userId ?? anonymousId
                copy properties.items.0.sku to properties.first_sku
                move properties.missing to properties.nowhere
                set userId = "u2"
                delete properties.absent.child
            }
            """, input))
        #expect(output.properties?["items"] == [["sku": "A", "price": 1], ["sku": "B", "price": 2], "not an object"])
        #expect(output.properties?["debug"] == nil)
        #expect(output.properties?["price"] == "12.5")
        #expect(output.properties?["flag"] == "false")
        #expect(output.properties?["missing"] == nil)
        #expect(output.properties?["nowhere"] == nil)
        #expect(output.context["deep"] == ["new": ["value": 1]])
        #expect(output.properties?["user"] == "u1")
        #expect(output.properties?["first_sku"] == "A")
        #expect(output.userId == "u2")
    }

    @Test func typesAndConditionsScopeRulesAndTheFirstDropEnds() throws {
        let rules = """
            rule { only identify
                drop }
            rule { when properties.total > 100
                set properties.big = true }
            rule { when event = "Spam"
                drop }
            rule { set properties.seen = true }
            """
        #expect(try run(rules, event(["total": 150]))?.properties == ["total": 150, "big": true, "seen": true])
        #expect(try run(rules, event(["total": 5]))?.properties == ["total": 5, "seen": true])
        #expect(try run(rules, event(name: "Spam")) == nil)
        #expect(try run(rules, Event(type: .identify, userId: "x")) == nil)
    }

    @Test func anOnlyListAppliesToExactlyItsTypes() throws {
        let all = EventType.allCases
        for bits in 0..<(1 << all.count) {
            let types = Set(all.indices.filter { bits & (1 << $0) != 0 }.map { all[$0] })
            let rules = RuleSet(rules: [Rule(name: "only", types: types, actions: [.drop])])
            for type in all {
                let kept = rules.apply(to: Event(type: type, userId: "u")) != nil
                #expect(kept == !types.contains(type), "only \(types.map(\.rawValue).sorted()) on \(type)")
            }
        }
        let everyType = RuleSet(rules: [Rule(name: "all", actions: [.drop])])
        #expect(all.allSatisfy { everyType.apply(to: Event(type: $0, userId: "u")) == nil })
    }

    @Test func failurePolicyOpenPassesClosedDrops() throws {
        let body = "rule \"bad\" { set properties.price.amount = 1 }"
        let input = event(["price": 5])
        #expect(try run("ruleset \"r\" fail open\n" + body, input)?.properties == ["price": 5])
        #expect(try run("ruleset \"r\" fail closed\n" + body, input) == nil)
    }

    @Test func sampleIsDeterministicAndMonotoneOver10kValues() async throws {
        try await offThePool {
            var kept: [Double: Set<Int>] = [:]
            for percent in [0.0, 10, 25, 50, 90, 100] {
                let rules = try RuleTextParser.parse("rule { sample \(percent)% by userId }")
                var survivors = Set<Int>()
                for index in 0..<10_000 where rules.apply(to: event(userId: "user-\(index)")) != nil { survivors.insert(index) }
                let again = Set((0..<10_000).filter { rules.apply(to: event(userId: "user-\($0)")) != nil })
                #expect(again == survivors)
                kept[percent] = survivors
            }
            #expect(kept[0]?.isEmpty == true)
            #expect(kept[100]?.count == 10_000)
            #expect(abs((kept[25]?.count ?? 0) - 2_500) < 300)
            let ladder = [0.0, 10, 25, 50, 90, 100]
            for (lower, higher) in zip(ladder, ladder.dropFirst()) {
                #expect(kept[lower]?.isSubset(of: kept[higher] ?? []) == true)
            }
        }
    }

    @Test func jsonFormIsEquivalentToText() throws {
        let json = try RuleSetLoader.load("""
            {"name": "mobile", "version": 2, "failure": "closed", "rules": [
              {"name": "fix", "when": "type = \\"track\\"", "only": ["track"], "actions": [
                {"move": {"from": "properties.productID", "to": "properties.product_id"}},
                {"set": {"path": "properties.key", "expression": "userId ?? anonymousId"}},
                {"set": {"path": "properties.source", "value": "ios"}},
                {"delete": "context.device.advertisingId"},
                {"remove": {"path": "properties", "keys": ["debug"]}}
              ]}]}
            """)
        let text = try RuleSetLoader.load("""
            ruleset "mobile" version 2 fail closed
            rule "fix" {
                when type = "track"
                only track
                move properties.productID to properties.product_id
                set properties.key = userId ?? anonymousId
                set properties.source = "ios"
                delete context.device.advertisingId
                remove properties: [debug]
            }
            """)
        #expect(json.rules == text.rules)
        #expect(json.version == 2 && json.failurePolicy == .closed)
        let input = event(["productID": "S", "debug": 1])
        #expect(json.apply(to: input) == text.apply(to: input))
        #expect(throws: RuleLoadError.self) { try RuleSetLoader.load(#"{"rules": [{"actions": [{"explode": true}]}]}"#) }
        #expect(throws: RuleLoadError.self) { try RuleSetLoader.load(#"{"rules": [{"when": "event ="}]}"#) }
    }
}
