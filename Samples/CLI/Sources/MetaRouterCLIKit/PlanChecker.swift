import Foundation
import MetaRouter

/// What `metarouter plan check` does: checks each event line against a tracking plan.
public enum PlanChecker {
    /// One JSON line per input line: `{"line": n, "event": name, "valid": true|false,
    /// "violations": [{"path", "rule", "message"}]}`; a line that is not an event is invalid
    /// with the rule `event`.
    public static func check(plan: TrackingPlan, eventLines: [String]) -> [String] {
        eventLines.enumerated().map { number, line in
            var result: [String: JSON] = ["line": .int(Int64(number + 1))]
            guard let event = EventLine.event(from: line) else {
                result["valid"] = false
                result["violations"] = [["path": "", "rule": "event", "message": "not a JSON event of a known type"]]
                return JSON.object(result).description
            }
            let violations = plan.violations(of: event)
            result["type"] = .string(event.type.rawValue)
            if let name = event.event ?? event.name { result["event"] = .string(name) }
            result["valid"] = .bool(violations.isEmpty)
            result["violations"] = .array(violations.map { violation in
                ["path": .string(violation.path), "rule": .string(violation.rule), "message": .string(violation.message)]
            })
            return JSON.object(result).description
        }
    }
}
