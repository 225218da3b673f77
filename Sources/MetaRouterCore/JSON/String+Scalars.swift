extension String {
    /// Whether the two strings hold the same Unicode scalars, in the same order: what JSON,
    /// JSON Schema and Segment's filter engine mean by equal strings. Swift's `==` compares by
    /// canonical equivalence instead, so `"é" == "e\u{301}"` there, which two JSON strings are
    /// not. Strings that differ by canonical equivalence alone are told apart by their UTF-8.
    @inlinable
    package func hasSameScalars(as other: String) -> Bool {
        self == other && utf8.count == other.utf8.count && utf8.elementsEqual(other.utf8)
    }

    /// ``hasSameScalars(as:)`` for an `ascii` string checked once with ``isASCII`` (a rule's
    /// literal): canonically equal and as long in UTF-8 is then enough, as every other spelling
    /// of ASCII text (a Kelvin sign for `K`) takes more bytes.
    @inlinable
    package func hasSameScalars(asASCII ascii: String) -> Bool {
        self == ascii && utf8.count == ascii.utf8.count
    }

    /// Whether every scalar is ASCII.
    package var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}
