import Foundation
import MetaRouter

/// Text summaries of what a collector received.
public enum Report {
    /// One line per event: type, name, identity.
    public static func line(for event: JSON) -> String {
        let type = event["type"]?.stringValue ?? "?"
        let name = (event["event"] ?? event["name"])?.stringValue.map { " \"\($0)\"" } ?? ""
        let user = event["userId"]?.stringValue.map { " userId=\($0)" } ?? ""
        let anonymous = event["anonymousId"]?.stringValue.map { " anonymousId=\($0.prefix(8))…" } ?? ""
        return "\(type.padding(toLength: 9, withPad: " ", startingAt: 0))\(name)\(user)\(anonymous)"
    }

    /// A table of batches and event types.
    public static func table(for batches: [ReceivedBatch]) -> String {
        var lines = ["batch  status  events  by type"]
        for (index, batch) in batches.enumerated() {
            var counts: [String: Int] = [:]
            for event in batch.events { counts[event["type"]?.stringValue ?? "?", default: 0] += 1 }
            let byType = counts.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            lines.append(String(format: "%5d  %6d  %6d  ", index + 1, batch.status, batch.events.count) + byType)
            for problem in batch.problems { lines.append("       ! \(problem)") }
        }
        return lines.joined(separator: "\n")
    }

    /// `value` as indented JSON with sorted keys.
    public static func pretty(_ value: JSON, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let members) where !members.isEmpty:
            let body = members.sorted { $0.key < $1.key }.map { "\(inner)\(JSON.string($0.key).description): \(pretty($0.value, indent: inner))" }
            return "{\n" + body.joined(separator: ",\n") + "\n\(indent)}"
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return value.description
        }
    }
}
