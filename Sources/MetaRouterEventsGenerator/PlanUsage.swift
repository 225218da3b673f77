import Foundation

/// Which planned events a code base calls, which it never calls, and which untyped
/// `track("…")` names it sends that the plan does not list: what `metarouter plan status`
/// prints.
public struct PlanUsage: Sendable, Equatable {
    /// Planned events the sources call, typed (`analytics.orderCompleted(…)`,
    /// `OrderCompleted(…)`) or by name (`track("Order Completed")`), by plan name.
    public var called: [String]
    /// Planned events no source calls, by plan name.
    public var neverCalled: [String]
    /// Names the sources pass to `track("…")` as a string literal that the plan does not list.
    public var unplanned: [String]

    /// Reads `sources` (Swift files' text) against `plan`.
    ///
    /// - Parameters:
    ///   - plan: The plan file's text (our format or a Segment Protocols export).
    ///   - sources: The text of each Swift file to read.
    /// - Throws: ``GenerationError`` when the plan cannot be read or its names collide.
    public init(plan: String, sources: [String]) throws(GenerationError) {
        let named = try EventsGenerator.names(of: PlanSchemas(text: plan))
        let planned = Set(named.map(\.entry.name))
        let literal = try! NSRegularExpression(pattern: #"\btrack\(\s*"((?:[^"\\]|\\.)*)""#)
        var tracked = Set<String>()
        for source in sources {
            let range = NSRange(source.startIndex..., in: source)
            for match in literal.matches(in: source, range: range) {
                guard let name = Range(match.range(at: 1), in: source) else { continue }
                tracked.insert(String(source[name]).replacingOccurrences(of: #"\""#, with: "\""))
            }
        }
        var called: [String] = []
        var never: [String] = []
        for (entry, typeName, method) in named {
            let typed = sources.contains { $0.contains(".\(method)(") || $0.contains("\(typeName)(") }
            if typed || tracked.contains(entry.name) { called.append(entry.name) } else { never.append(entry.name) }
        }
        self.called = called.sorted()
        neverCalled = never.sorted()
        unplanned = tracked.subtracting(planned).sorted()
    }
}
