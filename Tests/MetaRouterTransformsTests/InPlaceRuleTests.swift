import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

/// A rule made of one action edits the event in place, without a copy to roll back to; that is
/// only right if such an action changes nothing when it fails. So does a rule whose actions cannot
/// fail, one after the other; that is only right if they never do. And the event a caller passes
/// in is a value: rules never change the caller's copy.
@Suite struct InPlaceRuleTests {
    private static let shapes: [JSON?] = [
        nil, .null, 5, "text", true, ["amount": 3, "inner": ["x": 1]], [1, 2, 3], [:],
    ]

    private static let actions: [RuleAction] = {
        var actions: [RuleAction] = [.drop, .sample(percent: 50, by: ["userId"])]
        let paths: [[String]] = [
            ["properties"], ["properties", "price"], ["properties", "price", "amount"], ["properties", "price", "0"],
            ["properties", "price", "inner", "x"], ["traits", "a", "b"], ["context", "price"], ["integrations"],
            ["userId"], ["type"], ["messageId"], ["sentAt"], ["unknown"], ["event", "x"], [],
        ]
        for path in paths {
            actions += [
                .set(path, .literal(7)), .set(path, .literal(["k": 1])), .set(path, .path(["properties", "missing"])),
                .set(path, .path(["properties", "price"])), .delete(path), .toString(path),
                .copy(from: ["properties", "price"], to: path), .copy(from: path, to: ["properties", "copied"]),
                .allow(path, keys: ["amount"]), .remove(path, keys: ["amount", "inner"]),
            ]
        }
        return actions
    }()

    private func event(price: JSON?) -> Event {
        var properties: [String: JSON] = ["sku": "S-1"]
        properties["price"] = price
        return Event(type: .track, anonymousId: "a1", userId: "u1", event: "Order Completed", properties: properties,
                     context: ["app": ["name": "x"]])
    }

    @Test func anActionThatMayEditInPlaceChangesNothingWhenItFails() {
        var failures = 0
        for action in Self.actions where action.changesNothingWhenItFails {
            let run = action.form().action
            for shape in Self.shapes {
                let original = event(price: shape)
                var edited = original
                do {
                    _ = try run(&edited, .none)
                } catch {
                    failures += 1
                    #expect(edited == original, "\(action) on price \(String(describing: shape)) failed part-way")
                }
            }
        }
        // The generator must reach the failing paths, or the test shows nothing.
        #expect(failures > 20)
    }

    @Test func anActionCompiledAsUnableToFailNeverThrows() {
        var checked = 0
        for action in Self.actions {
            let form = action.form()
            guard form.cannotFail else { continue }
            for shape in Self.shapes {
                var edited = event(price: shape)
                do {
                    _ = try form.action(&edited, .none)
                } catch {
                    Issue.record("\(action) on price \(String(describing: shape)) threw \(error)")
                }
                checked += 1
            }
        }
        #expect(checked > 200)
    }

    /// A rule of several actions against the same actions as one rule each: the same event when
    /// none fails, and the event untouched when one does (the rule fails open as a whole), whether
    /// the actions ran in place or on a copy.
    @Test func aRuleOfSeveralActionsIsItsActionsInTurnOrNothing() {
        var random = SeededRandom(seed: 34)
        var failed = 0, changed = 0
        for _ in 0..<3_000 {
            let count = 2 + random.next(3)
            let actions = (0..<count).map { _ in Self.actions[random.next(Self.actions.count)] }
            let input = event(price: Self.shapes[random.next(Self.shapes.count)])
            var failures = 0
            let together = RuleSet(rules: [Rule(name: "all", actions: actions)])
                .apply(to: input, destination: nil, onStep: nil, onFailure: { _, _ in failures += 1 })
            if failures > 0 {
                failed += 1
                #expect(together == input, "\(actions) failed part-way and kept a change")
                continue
            }
            let inTurn = RuleSet(rules: actions.enumerated().map { Rule(name: "\($0.offset)", actions: [$0.element]) }).apply(to: input)
            #expect(together == inTurn, "\(actions) on \(input.jsonObject())")
            if let together, together != input { changed += 1 }
        }
        // Both branches must be reached, or the test shows nothing.
        #expect(failed > 100)
        #expect(changed > 500)
    }

    @Test func rulesNeverChangeTheCallersEvent() throws {
        let rules = try RuleTextParser.parse("""
            rule { set properties.tier = "high" }
            rule { remove properties: [sku] }
            rule { set context.key = userId }
            rule { copy properties.price to properties.amount }
            rule { move properties.amount to properties.total }
            """)
        let input = event(price: 10)
        let snapshot = input
        let output = try #require(rules.apply(to: input))
        #expect(input == snapshot)
        #expect(input.properties == ["sku": "S-1", "price": 10])
        #expect(output.properties == ["price": 10, "tier": "high", "total": 10])
        #expect(output.context["key"] == "u1")
    }

    @Test func aFailingRuleOfOneActionLeavesTheEventAsTheEarlierRulesMadeIt() throws {
        let rules = try RuleTextParser.parse("""
            ruleset "r" fail open
            rule { set properties.tier = "high" }
            rule "bad" { set properties.price.amount = 1 }
            rule { set properties.after = true }
            """)
        let output = try #require(rules.apply(to: event(price: 5)))
        #expect(output.properties == ["sku": "S-1", "price": 5, "tier": "high", "after": true])
    }
}
