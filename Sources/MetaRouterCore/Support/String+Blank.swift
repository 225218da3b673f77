extension String {
    /// Whether the text is empty or only white space and zero-width spaces (what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` removes on Linux), decided at the first
    /// other character. Foundation's trimming costs a call a quarter of its time, and its first
    /// use in a process loads character tables (about 0.3 ms): this reads scalars only.
    package var isBlank: Bool { unicodeScalars.allSatisfy(\.isBlank) }

    /// The text without the blank scalars (``isBlank``) at either end.
    package func trimmingBlanks() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isBlank }), let last = scalars.lastIndex(where: { !$0.isBlank }) else {
            return ""
        }
        return String(scalars[first...last])
    }
}

extension Unicode.Scalar {
    /// White space, a line or paragraph break, or a zero-width space.
    package var isBlank: Bool {
        if isASCII { return self == " " || (0x09...0x0D).contains(value) }
        return properties.isWhitespace || self == "\u{200B}"
    }
}
