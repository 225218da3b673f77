import Foundation
import MetaRouter

/// What `metarouter rules check` does: runs each event line through a rule set.
public enum RulesChecker {
    /// One output line per input line: the event after the rules as JSON, or `null` when the
    /// rules dropped it (or the line was not an event). `explain` receives one line per rule
    /// and event.
    public static func check(ruleSet: RuleSet, eventLines: [String], destination: String?, explain: ((String) -> Void)?) -> [String] {
        eventLines.enumerated().map { number, line in
            guard let event = EventLine.event(from: line) else {
                explain?("event \(number + 1): not an event")
                return "null"
            }
            let result = ruleSet.apply(to: event, destination: destination, onStep: explain.map { report in
                { step in report("event \(number + 1): \(step.rule): \(step.outcome)") }
            })
            return result.map { JSON.object($0.jsonObject()).description } ?? "null"
        }
    }
}

/// Turns a JSONL line into an event; `messageId`, `timestamp` and an `anonymousId` are filled
/// in when missing.
public enum EventLine {
    /// The event on `line`, or `nil` when it is not a JSON object of a known type.
    public static func event(from line: String) -> Event? {
        guard var object = (try? JSONText.parse(line))?.objectValue else { return nil }
        let now = Date()
        if object["timestamp"] == nil { object["timestamp"] = JSON(timestamp: now) }
        if object["messageId"] == nil { object["messageId"] = .string("\(Int64(now.timeIntervalSince1970 * 1000))-\(UUID().uuidString)") }
        if object["anonymousId"] == nil && object["userId"] == nil { object["anonymousId"] = .string(UUID().uuidString.lowercased()) }
        return Event(json: .object(object))
    }
}
