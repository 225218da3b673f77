import Foundation
import MetaRouterCore
import Testing

@testable import MetaRouterTransforms

/// The shapes rules use most compile to specialised closures: a text field against a string, a
/// field against a number or a list of literals, whether one key of an object field exists, one
/// key of an object field read or written.
/// Each must give what the general evaluation gives, on every kind of value — missing, null,
/// numbers of each kind, strings that are equal only canonically, objects and lists.
@Suite struct SpecializedRuleTests {
    private static let values: [JSON?] = [
        nil, .null, 5, 5.0, 5.5, -1, .uint(7), "5", "", "EUR", "é", "e\u{301}", "K", "\u{212A}", true, false, [5], ["a": 1],
    ]
    private static let texts: [String?] = [nil, "", "Order Completed", "é", "e\u{301}", "K", "\u{212A}", "track"]

    private static let events: [Event] = {
        var events: [Event] = []
        for (index, value) in values.enumerated() {
            let text = texts[index % texts.count]
            var properties: [String: JSON] = ["sku": "S-1"]
            properties["price"] = value
            let type: EventType = index % 3 == 0 ? .identify : .track
            events.append(Event(type: type, userId: text, event: text, properties: index % 5 == 4 ? nil : properties,
                                traits: index % 2 == 0 ? ["price": value ?? .null] : nil, context: ["app": ["name": "x"]]))
        }
        return events
    }()

    private static let conditions: [MetaRouterTransforms.Expression] = {
        var conditions: [MetaRouterTransforms.Expression] = []
        let fields: [[String]] = [["event"], ["userId"], ["type"], ["properties", "price"], ["traits", "price"], ["properties", "missing"]]
        for field in fields {
            for text in ["Order Completed", "é", "e\u{301}", "K", "track", "identify", ""] {
                conditions.append(.compare(.equal, .path(field), .literal(.string(text))))
                conditions.append(.compare(.notEqual, .path(field), .literal(.string(text))))
            }
            for bound: JSON in [5, 5.0, -1, .uint(7), "5", true, .null] {
                for comparison: ComparisonOperator in [.less, .lessOrEqual, .greater, .greaterOrEqual] {
                    conditions.append(.compare(comparison, .path(field), .literal(bound)))
                }
            }
            conditions.append(.call("exists", [.path(field)]))
            let lists: [[JSON]] = [["EUR", "USD"], ["é"], ["K", "track"], ["5", 5], [.null], [], [[5]], [["a": 1]]]
            for list in lists {
                conditions.append(.compare(.in, .path(field), .list(list.map { .literal($0) })))
            }
        }
        return conditions
    }()

    @Test func specialisedComparisonsAgreeWithTheGeneralOnes() {
        var checked = 0
        var matched = 0
        for condition in Self.conditions {
            if case .compare = condition {
                #expect(Evaluator.Comparison.predicate(condition) != nil || condition.isTextComparisonOnAnObjectField,
                        "\(condition) was not specialised")
            }
            let specialised = Evaluator.condition(condition)
            let general = Evaluator.compile(condition)
            for event in Self.events {
                let expected = general(event, .none) == .bool(true)
                #expect(specialised(event, .none) == expected, "\(condition) on \(event.jsonObject())")
                checked += 1
                if expected { matched += 1 }
            }
        }
        // Both outcomes must be reached often, or agreeing shows little.
        #expect(checked > 5_000 && matched > 500 && checked - matched > 500)
    }

    @Test func oneKeyWritesAgreeWithEditingTheWholeEvent() throws {
        let targets: [[String]] = [
            ["properties", "price"], ["properties", "new"], ["traits", "price"], ["traits", "new"], ["context", "app"],
            ["context", "new"], ["integrations", "new"],
        ]
        var changed = 0
        for event in Self.events {
            for target in targets {
                for value in Self.values {
                    for createParents in [true, false] {
                        var edited = event
                        try EventAccess.write(value, at: target, in: &edited, createParents: createParents)
                        let whole = try JSONEdit.setting(value, at: target[...], in: .object(event.jsonObject()), createParents: createParents)
                        #expect(JSON.object(edited.jsonObject()) == whole, "\(target) = \(String(describing: value)) on \(event.jsonObject())")
                        if edited != event { changed += 1 }
                    }
                }
            }
        }
        #expect(changed > 1_000)
    }

    @Test func compiledOneKeyActionsAgreeWithEditingTheWholeEvent() throws {
        let actions: [RuleAction] = [
            .set(["properties", "tier"], .literal("high")), .set(["traits", "tier"], .path(["userId"])),
            .set(["properties", "price"], .path(["properties", "missing"])), .copy(from: ["properties", "price"], to: ["context", "amount"]),
            .copy(from: ["traits", "price"], to: ["integrations", "amount"]), .delete(["properties", "price"]), .delete(["traits", "missing"]),
        ]
        for action in actions {
            let run = action.form().action
            for event in Self.events {
                var edited = event
                #expect(try run(&edited, .none))
                var whole = JSON.object(event.jsonObject())
                switch action {
                case .set(let path, let expression):
                    whole = try JSONEdit.setting(Evaluator.compile(expression)(event, .none), at: path[...], in: whole, createParents: true)
                case .copy(let source, let target):
                    if let value = EventAccess.reader(source)(event, .none) {
                        whole = try JSONEdit.setting(value, at: target[...], in: whole, createParents: true)
                    }
                case .delete(let path):
                    whole = try JSONEdit.setting(nil, at: path[...], in: whole, createParents: false)
                default:
                    Issue.record("unexpected action \(action)")
                }
                #expect(JSON.object(edited.jsonObject()) == whole, "\(action) on \(event.jsonObject())")
            }
        }
    }
}

extension MetaRouterTransforms.Expression {
    /// `properties.price = "…"`: compared as JSON, not as a text field, so not specialised.
    fileprivate var isTextComparisonOnAnObjectField: Bool {
        guard case .compare(let comparison, .path(let path), .literal(.string)) = self else { return false }
        return (comparison == .equal || comparison == .notEqual) && EventAccess.textReader(path) == nil
    }
}
