import Foundation
import MetaRouter

/// What the inspector says about one received event: the wire format's problems, the tracking
/// plan's violations (with `--plan`), and what the rule set would do to it (with `--rules`).
public struct EventAnalysis: Sendable {
    /// What the event breaks of the Segment Spec (``WireValidator/Rules/segmentSpec``): the
    /// inspector judges every SDK by what the spec requires.
    public var wireProblems: [String] = []
    /// Plan violations: path, rule, message, as `metarouter plan check` prints them.
    public var violations: [(path: String, rule: String, message: String)] = []
    /// `kept`, `changed` or `dropped` (nil without `--rules`).
    public var rulesOutcome: String?
    /// The rules that matched, in order, and the one that dropped the event.
    public var rulesMatched: [String] = []
    /// What the rules changed: each path with its value before and after (`null`: absent).
    public var rulesDiff: [(path: String, before: JSON, after: JSON)] = []

    /// Whether anything is wrong (a badge on the row).
    public var hasProblems: Bool { !wireProblems.isEmpty || !violations.isEmpty }

    /// Analyses `event` against `plan` and `rules` when given.
    public static func of(_ event: JSON, plan: TrackingPlan?, rules: RuleSet?) -> EventAnalysis {
        var analysis = EventAnalysis()
        analysis.wireProblems = WireValidator.problems(inEvent: event, rules: .segmentSpec)
        guard let parsed = Event(json: event) else { return analysis }
        if let plan {
            analysis.violations = plan.violations(of: parsed).map { ($0.path, $0.rule, $0.message) }
        }
        if let rules {
            var steps: [RuleSet.Step] = []
            let result = rules.apply(to: parsed, onStep: { steps.append($0) })
            analysis.rulesMatched = steps.filter { $0.outcome != "skipped" }.map { "\($0.rule): \($0.outcome)" }
            if let result {
                analysis.rulesDiff = diff(.object(parsed.jsonObject()), .object(result.jsonObject()), path: "")
                analysis.rulesOutcome = analysis.rulesDiff.isEmpty ? "kept" : "changed"
            } else {
                analysis.rulesOutcome = "dropped"
            }
        }
        return analysis
    }

    /// The analysis as the page reads it.
    public var json: JSON {
        var object: [String: JSON] = [
            "wireProblems": .array(wireProblems.map(JSON.string)),
            "violations": .array(violations.map { ["path": .string($0.path), "rule": .string($0.rule), "message": .string($0.message)] }),
        ]
        if let rulesOutcome {
            object["rules"] = [
                "outcome": .string(rulesOutcome), "matched": .array(rulesMatched.map(JSON.string)),
                "diff": .array(rulesDiff.map { ["path": .string($0.path), "before": $0.before, "after": $0.after] }),
            ]
        }
        return .object(object)
    }

    /// The leaves that differ between `before` and `after`, depth first, at most 200.
    static func diff(_ before: JSON, _ after: JSON, path: String, depth: Int = 0) -> [(path: String, before: JSON, after: JSON)] {
        if before == after { return [] }
        guard depth < 32, case .object(let old) = before, case .object(let new) = after else { return [(path, before, after)] }
        var changes: [(path: String, before: JSON, after: JSON)] = []
        for key in Set(old.keys).union(new.keys).sorted() where changes.count < 200 {
            let child = path.isEmpty ? key : path + "." + key
            changes += diff(old[key] ?? .null, new[key] ?? .null, path: child, depth: depth + 1)
        }
        return changes
    }

    /// A rule-language condition as a filter: `nil` and the compiler's message when it does not
    /// compile, otherwise a test that says whether an event matches it.
    public static func condition(_ text: String) -> (test: (@Sendable (JSON) -> Bool)?, error: String?) {
        let source = "ruleset \"filter\" version 1\nrule \"filter\" {\n    when \(text)\n    drop\n}\n"
        do {
            let rules = try RuleSetLoader.load(source, format: .text)
            return ({ json in Event(json: json).map { rules.apply(to: $0) == nil } ?? false }, nil)
        } catch {
            return (nil, "\(error)")
        }
    }
}
