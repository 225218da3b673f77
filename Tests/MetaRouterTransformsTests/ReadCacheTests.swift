import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

/// A rule set reads a key once per call when two or more of its reads name it and no action
/// can change it. The plan must leave out every key an action could change — itself, its
/// object, or the whole event — and a set that caches must give exactly what the same set
/// gives reading every value from the event.
@Suite struct ReadCacheTests {
    private func rules(_ text: String) throws -> [Rule] { try RuleTextParser.parse(text).rules }

    @Test func cachesKeysReadTwiceThatNoActionChanges() throws {
        let plan = ReadPlan(rules: try rules("""
            rule { when properties.price > 1 and exists(properties.sku)
                set properties.tier = "a" }
            rule { when properties.price > 5 and context.locale = "en" and properties.tier = "a"
                copy properties.sku to context.sku }
            rule { when properties.tier = "b" and traits.plan in ["x"]
                set traits.seen = true }
            """))
        #expect(plan.slot(for: ObjectKeyPath(.properties, "price")) != nil)
        #expect(plan.slot(for: ObjectKeyPath(.properties, "sku")) != nil)
        // Written by an action, so read afresh each time.
        #expect(plan.slot(for: ObjectKeyPath(.properties, "tier")) == nil)
        // Read once only: nothing to gain.
        #expect(plan.slot(for: ObjectKeyPath(.context, "locale")) == nil)
        #expect(plan.count == 2)
    }

    @Test func anActionOnAWholeObjectOrTheWholeEventStopsCaching() throws {
        let reads = "rule { when properties.price > 1 and properties.price < 9 and context.app = 1 and context.app = 2 }\n"
        let wholeProperties = ReadPlan(rules: try rules(reads + "rule { allow properties: [price] }"))
        #expect(wholeProperties.slot(for: ObjectKeyPath(.properties, "price")) == nil)
        #expect(wholeProperties.slot(for: ObjectKeyPath(.context, "app")) != nil)
        let removesPrice = ReadPlan(rules: try rules(reads + "rule { remove properties: [price] }"))
        #expect(removesPrice.slot(for: ObjectKeyPath(.properties, "price")) == nil)
        let removesOther = ReadPlan(rules: try rules(reads + "rule { remove properties: [debug] }"))
        #expect(removesOther.slot(for: ObjectKeyPath(.properties, "price")) != nil)
        let nested = ReadPlan(rules: try rules(reads + "rule { set properties.price.amount = 1 }"))
        #expect(nested.slot(for: ObjectKeyPath(.properties, "price")) == nil)
        let moved = ReadPlan(rules: try rules(reads + "rule { move properties.price to properties.old }"))
        #expect(moved.slot(for: ObjectKeyPath(.properties, "price")) == nil)
        let replaced = ReadPlan(rules: [Rule(name: "r", actions: [.set(["context"], .literal(["app": 3]))])] + (try rules(reads)))
        #expect(replaced.slot(for: ObjectKeyPath(.context, "app")) == nil)
        let everything = ReadPlan(rules: [Rule(name: "r", actions: [.remove([], keys: ["userId"])])] + (try rules(reads)))
        #expect(everything.count == 0)
    }

    /// The expression `text` parses to, as a rule's condition.
    private func condition(_ text: String) throws -> MetaRouterTransforms.Expression {
        try #require(rules("rule { when \(text) }").first?.condition)
    }

    @Test func cachesConditionsTestedTwiceThatNoActionCanChange() throws {
        let plan = ReadPlan(rules: try rules("""
            rule { when match(event, "Product *") and properties.price > 1
                set context.seen = true }
            rule { when match(event, "Product *") and properties.price > 5
                set properties.tier = "a" }
            rule { when properties.tier = "a" or exists(context.seen)
                set context.level = 1 }
            rule { when properties.tier = "a" or exists(context.seen) }
            rule { when userId = "u" and !(properties.price > 1) }
            rule { when type = "track" and userId = "u" }
            """))
        // Tested by two rules; nothing it reads is written.
        #expect(plan.slot(forCondition: try condition("match(event, \"Product *\")")) != nil)
        #expect(plan.slot(forCondition: try condition("userId = \"u\"")) != nil)
        // A term inside `!` counts like any other.
        #expect(plan.slot(forCondition: try condition("properties.price > 1")) != nil)
        // Each tested once.
        #expect(plan.slot(forCondition: try condition("properties.price > 5")) == nil)
        #expect(plan.slot(forCondition: try condition("type = \"track\"")) == nil)
        // Tested twice, but each reads a key rules write.
        #expect(plan.slot(forCondition: try condition("properties.tier = \"a\" or exists(context.seen)")) == nil)
        #expect(plan.slot(forCondition: try condition("exists(context.seen)")) == nil)
        // One key (`properties.price`) and three conditions, each in a slot of its own.
        let slots = try [
            plan.slot(for: ObjectKeyPath(.properties, "price")), plan.slot(forCondition: condition("match(event, \"Product *\")")),
            plan.slot(forCondition: condition("userId = \"u\"")), plan.slot(forCondition: condition("properties.price > 1")),
        ]
        #expect(plan.count == 4 && Set(slots.compactMap { $0 }) == Set(0..<4))

        let overlapping = [
            ("set event = \"Product X\"", "match(event, \"Product *\")"),
            ("set context = properties", "context.app = \"a\""),
            ("set context.app.name = \"x\"", "context.app = \"a\""),
            ("remove context: [app]", "context.app = \"a\""),
            ("delete userId", "userId = \"u\""),
            ("copy properties.price to context.app", "exists(context.app.name)"),
        ]
        for (action, text) in overlapping {
            let plan = ReadPlan(rules: try rules("rule { when \(text) }\nrule { when \(text)\n \(action) }"))
            #expect(plan.slot(forCondition: try condition(text)) == nil, "\(action) changes what \(text) reads")
        }
    }

    /// Random rule sets over a handful of keys — conditions, sets, copies, moves, deletes,
    /// allow- and drop-lists, `map`, several actions per rule — run with and without the cache
    /// on random events: the same output every time.
    @Test func aSetThatCachesGivesWhatTheSameSetGivesWithout() throws {
        var random = SeededRandom(seed: 20261123)
        let keys = ["price", "sku", "tier", "currency"]
        let fields = ["properties", "context", "traits"]
        func path() -> [String] { [fields[random.next(3)], keys[random.next(4)]] }
        func text(_ path: [String]) -> String { path.joined(separator: ".") }
        func condition() -> String {
            switch random.next(5) {
            case 0: return "\(text(path())) > \(random.next(20))"
            case 1: return "exists(\(text(path())))"
            case 2: return "\(text(path())) in [\"EUR\", \"a\", 5]"
            case 3: return "\(text(path())) = \(text(path()))"
            default: return "!(\(text(path())) < \(random.next(10))) or \(text(path())) = \"a\""
            }
        }
        func action() -> String {
            switch random.next(9) {
            case 0, 1: return "set \(text(path())) = \(text(path())) ?? \(random.next(9))"
            case 2: return "copy \(text(path())) to \(text(path()))"
            case 3: return "move \(text(path())) to \(text(path()))"
            case 4: return "delete \(text(path()))"
            case 5: return "remove \(fields[random.next(3)]): [\(keys[random.next(4)])]"
            case 6: return "allow \(fields[random.next(3)]): [\(keys[random.next(4)]), \(keys[random.next(4)])]"
            case 7: return "to_string \(text(path()))"
            default: return "set \(text(path())) = \"a\""
            }
        }
        var cachedSets = 0
        var changed = 0
        for _ in 0..<300 {
            var ruleText = ""
            for _ in 0..<(2 + random.next(6)) {
                let actions = (0..<(1 + random.next(2))).map { _ in action() }
                ruleText += "rule { when \(condition()) and \(condition())\n" + actions.joined(separator: "\n") + " }\n"
                if random.next(3) == 0 { ruleText += "rule { when \(condition()) }\n" }
            }
            let parsed = try rules(ruleText)
            let cached = RuleSet(rules: parsed)
            let plain = RuleSet(rules: parsed, cachingReads: false)
            if ReadPlan(rules: parsed).count > 0 { cachedSets += 1 }
            for _ in 0..<10 {
                var objects: [[String: JSON]] = []
                for _ in fields {
                    var object: [String: JSON] = [:]
                    for key in keys where random.next(3) > 0 {
                        object[key] = [JSON.int(Int64(random.next(20))), "a", "EUR", .null, ["n": 1], 3.5][random.next(6)]
                    }
                    objects.append(object)
                }
                let event = Event(type: .track, userId: "u", event: "e", properties: objects[0], traits: objects[2], context: objects[1])
                let expected = plain.apply(to: event)
                #expect(cached.apply(to: event) == expected, "\(ruleText) on \(event.jsonObject())")
                if expected != event { changed += 1 }
            }
        }
        // The generator must reach sets that cache and events that change, or agreeing shows little.
        #expect(cachedSets > 50 && changed > 500, "\(cachedSets) sets cached, \(changed) events changed")
    }

    /// Random rule sets whose conditions come from a small pool, so that rules share them —
    /// over top-level fields, object keys, nested values and whole objects — and whose actions
    /// sometimes write what those conditions read: with and without the cache, the same output.
    @Test func aSetThatCachesConditionsGivesWhatTheSameSetGivesWithout() throws {
        var random = SeededRandom(seed: 20261125)
        let pool = [
            "match(event, \"Product *\")", "event = \"Product Added\"", "userId = \"u\"", "exists(properties.sku)",
            "properties.price > 5", "properties.currency in [\"EUR\", \"USD\"]", "context.app.name = \"a\"",
            "exists(context.app)", "type = \"track\"", "!(properties.price > 10) or exists(traits.plan)",
        ]
        let actions = [
            "set event = \"Product Removed\"", "set event = \"Checkout\"", "set userId = \"v\"", "delete userId",
            "set properties.sku = \"x\"", "remove properties: [sku]", "set properties.price = 20", "copy properties.price to context.app",
            "set context.app.name = \"b\"", "set traits.plan = \"p\"", "set properties.tier = \"t\"", "set context.seen = true",
        ]
        var setsCachingConditions = 0
        var changed = 0
        for _ in 0..<300 {
            var ruleText = ""
            for _ in 0..<(2 + random.next(8)) {
                let condition = (0..<(1 + random.next(2))).map { _ in pool[random.next(pool.count)] }.joined(separator: " and ")
                let action = random.next(3) == 0 ? "" : "\n" + actions[random.next(actions.count)]
                ruleText += "rule { when \(condition)\(action) }\n"
            }
            let parsed = try rules(ruleText)
            let cached = RuleSet(rules: parsed)
            let plain = RuleSet(rules: parsed, cachingReads: false)
            if ReadPlan(rules: parsed).conditionCount > 0 { setsCachingConditions += 1 }
            for _ in 0..<10 {
                let name = ["Product Added", "Product Viewed", "Checkout", "Order"][random.next(4)]
                var properties: [String: JSON] = ["price": [JSON.int(3), 7.5, 12, "a"][random.next(4)]]
                if random.next(2) == 0 { properties["sku"] = "s" }
                if random.next(2) == 0 { properties["currency"] = ["EUR", "GBP"][random.next(2)] }
                let context: [String: JSON] = random.next(2) == 0 ? ["app": ["name": ["a", "b"][random.next(2)]]] : [:]
                let event = Event(
                    type: random.next(4) == 0 ? .screen : .track, userId: random.next(2) == 0 ? "u" : nil, event: name,
                    properties: properties, traits: random.next(3) == 0 ? ["plan": "p"] : nil, context: context)
                let expected = plain.apply(to: event)
                #expect(cached.apply(to: event) == expected, "\(ruleText) on \(event.jsonObject())")
                if expected != event { changed += 1 }
            }
        }
        #expect(setsCachingConditions > 100 && changed > 1_000, "\(setsCachingConditions) sets cached conditions, \(changed) events changed")
    }
}
