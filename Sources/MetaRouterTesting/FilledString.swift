extension String {
    /// `count` copies of one ASCII character, made as bytes: `String(repeating:count:)`
    /// appends one copy at a time, which in a debug build costs milliseconds for a 100 KB
    /// string, and a generative test makes thousands of them.
    package init(filling character: Unicode.Scalar, count length: Int) {
        precondition(character.isASCII, "only an ASCII character is one byte")
        let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: character.value), count: Swift.max(0, length))
        self.init(decoding: bytes, as: UTF8.self)
    }
}
