/// Lines of generated Swift, indented by four spaces a level, kept as one growing text (a plan
/// of thousands of events is megabytes of Swift; an array of lines joined at the end cost twice).
struct CodeLines {
    private(set) var text = ""
    var indent = 0
    /// The namespace-level names of the generated types more than one property uses (their
    /// doc comment says so).
    var sharedTypes: Set<String> = []
    private static let indents = (0..<64).map { String(repeating: "    ", count: $0) }

    mutating func line(_ content: String = "") {
        if !content.isEmpty { text += Self.indents[min(indent, 63)] }
        text += content
        text += "\n"
    }

    mutating func doc(_ content: String?) {
        for part in SwiftNames.docLines(content ?? "") { line("/// \(part)") }
    }

    /// Drops a trailing empty line.
    mutating func trimTrailingBlank() {
        if text.hasSuffix("\n\n") { text.removeLast() }
    }
}
