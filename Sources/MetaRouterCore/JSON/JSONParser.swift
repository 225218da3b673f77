import Foundation

/// An error from ``JSONParser``, with the byte offset where reading stopped.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset into the input.
    package let offset: Int
    /// What was wrong there.
    package let reason: String

    /// A one-line description.
    package var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// Reads JSON text into ``JSON`` values. Integers without a fraction or exponent become
/// ``JSON/int(_:)`` (or ``JSON/uint(_:)`` above `Int64.max`); everything else numeric becomes
/// ``JSON/double(_:)``.
package struct JSONParser {
    /// Nesting deeper than this is rejected rather than risking the stack.
    package static let maximumDepth = 128

    private let bytes: [UInt8]
    private var index = 0
    /// Values nested deeper than this are skipped and read as `null` (see
    /// ``parse(_:nullingDeeperThan:)``); `nil` reads every level up to ``maximumDepth``.
    private let nullingDepth: Int?

    private init(_ bytes: [UInt8], nullingDeeperThan depth: Int? = nil) {
        self.bytes = bytes
        nullingDepth = depth
    }

    /// Parses one complete JSON document from `text`.
    ///
    /// - Parameter text: The JSON text.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the offset and the reason.
    package static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }

    /// Parses one complete JSON document from UTF-8 `data`.
    ///
    /// - Parameter data: The JSON text.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the offset and the reason.
    package static func parse(_ data: Data) throws(JSONParseError) -> JSON {
        try parse([UInt8](data))
    }

    /// Parses one complete JSON document from UTF-8 `bytes`.
    ///
    /// - Parameter bytes: The JSON text.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the offset and the reason.
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        var parser = JSONParser(bytes)
        let value = try parser.readValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected trailing characters") }
        return value
    }

    /// Parses one complete JSON document from UTF-8 `bytes` that a JSON encoder wrote, reading
    /// each value nested deeper than `depth` as `null` instead of failing past ``maximumDepth``:
    /// the caller drops the containers that hold them, and keeps their siblings. The skipped
    /// text is scanned without recursion and only for its brackets and strings.
    ///
    /// - Parameters:
    ///   - bytes: The JSON text.
    ///   - depth: The deepest level read as it is (the top-level value is level 0).
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the offset and the reason.
    package static func parse(_ bytes: [UInt8], nullingDeeperThan depth: Int) throws(JSONParseError) -> JSON {
        var parser = JSONParser(bytes, nullingDeeperThan: depth)
        let value = try parser.readValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected trailing characters") }
        return value
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func readValue(depth: Int) throws(JSONParseError) -> JSON {
        if let nullingDepth, depth > nullingDepth {
            try skipValue()
            return .null
        }
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject(depth: depth)
        case UInt8(ascii: "["): return try readArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("unexpected character")
        }
    }

    /// Moves past one value, however deep, counting brackets outside strings.
    private mutating func skipValue() throws(JSONParseError) {
        var unclosed = 0
        repeat {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): unclosed += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): unclosed -= 1
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
            default:
                // A scalar, a comma or a colon: read up to the next bracket, quote or comma.
                while index + 1 < bytes.count, !Self.endsScalar(bytes[index + 1]) { index += 1 }
            }
            index += 1
        } while unclosed > 0
        guard index <= bytes.count else { throw error("unexpected end of input") }
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\""), UInt8(ascii: ","): return true
        default: return false
        }
    }

    private mutating func expectWord(_ word: String) throws(JSONParseError) {
        for expected in word.utf8 {
            guard index < bytes.count else { throw error("unexpected end of input") }
            guard bytes[index] == expected else { throw error("unknown literal") }
            index += 1
        }
    }

    private mutating func readObject(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var members: [String: JSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            let value = try readValue(depth: depth + 1)
            if members.updateValue(value, forKey: key) != nil, let kept = members.index(forKey: key), !members[kept].key.hasSameScalars(as: key) {
                // Swift's dictionary keys compare by canonical equivalence, JSON's by code points:
                // refuse rather than silently lose one of the two values.
                throw error(
                    "the keys \(Self.scalars(members[kept].key)) and \(Self.scalars(key)) differ only in Unicode normalization, "
                        + "and an object here cannot hold both")
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    /// `key` with every scalar outside printable ASCII written `\u{…}`, so that two keys that
    /// look alike read differently (at most 64 scalars).
    private static func scalars(_ key: String) -> String {
        let shown = key.unicodeScalars.prefix(64).map { scalar in
            (0x20..<0x7F).contains(scalar.value) ? String(scalar) : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
        return "\"" + shown.joined() + (key.unicodeScalars.count > 64 ? "…" : "") + "\""
    }

    private mutating func readArray(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try readValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func readNumber() throws(JSONParseError) -> JSON {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > digitsStart else { throw error("expected a digit") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let fractionStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > fractionStart else { throw error("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > exponentStart else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger {
            if let value = Int64(text) { return .int(value) }
            if let value = UInt64(text) { return .uint(value) }
        }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }

    private mutating func readString() throws(JSONParseError) -> String {
        index += 1
        var scalars: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(into: &scalars)
                default: throw error("unknown escape")
                }
            case 0..<0x20:
                throw error("control character in string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("bad hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func appendUnicodeEscape(into scalars: inout [UInt8]) throws(JSONParseError) {
        var code = try readHex4()
        if (0xD800...0xDBFF).contains(code) {
            guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate") }
            index += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
            throw error("unpaired surrogate")
        }
        guard let scalar = Unicode.Scalar(code) else { throw error("invalid code point") }
        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}
