/// Which planned events a code base calls, which it never calls, and which untyped
/// `track("…")` names it sends that the plan does not list
/// (``EventsGenerator/usage(plan:sources:)``).
package struct PlanUsage: Sendable, Equatable {
    /// Planned events the sources call, typed (`analytics.orderCompleted(…)`,
    /// `OrderCompleted(…)`) or by name (`track("Order Completed")`), by plan name.
    package var called: [String]
    /// Planned events no source calls, by plan name.
    package var neverCalled: [String]
    /// Names the sources pass to `track("…")` as a string literal that the plan does not list.
    package var unplanned: [String]

    /// Reads `sources` (Swift files' text) against `plan`.
    ///
    /// - Parameters:
    ///   - plan: The plan file's text (our format or a Segment Protocols export).
    ///   - sources: The text of each Swift file to read.
    /// - Throws: ``GenerationError`` when the plan cannot be read.
    package init(plan: String, sources: [String]) throws(GenerationError) {
        var warnings: [String] = []
        let named = EventsGenerator.names(of: try EventsGenerator.document(plan), warnings: &warnings)
        let planned = Set(named.map(\.entry.name))
        let tracked = Set(sources.flatMap(Self.trackedNames(in:)))
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

    /// The string literals passed first to a call named `track`: `track("Signed Up"` and
    /// `.track( "A \"quoted\" name"`, not `untrack("…"` or a literal anywhere else.
    static func trackedNames(in source: String) -> [String] {
        var names: [String] = []
        var searchFrom = source.startIndex
        while let call = source.range(of: "track(", range: searchFrom..<source.endIndex) {
            searchFrom = call.upperBound
            if call.lowerBound > source.startIndex {
                let before = source[source.index(before: call.lowerBound)]
                if before.isLetter || before.isNumber || before == "_" { continue }
            }
            var index = call.upperBound
            while index < source.endIndex, source[index].isWhitespace { index = source.index(after: index) }
            guard index < source.endIndex, source[index] == "\"" else { continue }
            index = source.index(after: index)
            var name = ""
            while index < source.endIndex, source[index] != "\"" {
                if source[index] == "\\", source.index(after: index) < source.endIndex {
                    index = source.index(after: index)
                    if source[index] != "\"" { name.append("\\") }
                }
                name.append(source[index])
                index = source.index(after: index)
            }
            if index < source.endIndex { names.append(name) }
            searchFrom = index
        }
        return names
    }
}
