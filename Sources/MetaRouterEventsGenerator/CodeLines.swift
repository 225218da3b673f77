/// Lines of generated Swift, indented by four spaces a level.
struct CodeLines {
    private(set) var lines: [String] = []
    var indent = 0

    mutating func line(_ text: String = "") {
        lines.append(text.isEmpty ? "" : String(repeating: "    ", count: indent) + text)
    }

    mutating func doc(_ text: String?) {
        for part in SwiftNames.docLines(text ?? "") { line("/// \(part)") }
    }

    /// Drops a trailing empty line.
    mutating func trimTrailingBlank() {
        if lines.last == "" { lines.removeLast() }
    }

    /// The lines as one text, ending in a line break.
    var text: String { lines.joined(separator: "\n") + "\n" }
}
