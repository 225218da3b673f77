import Foundation
import MetaRouterCore

/// The built-in functions of the rule language. Missing values are treated as `null`.
enum Functions {
    /// Accepted argument counts.
    static let arity: [String: ClosedRange<Int>] = [
        "contains": 2...2, "match": 2...2, "length": 1...1, "lowercase": 1...1, "uppercase": 1...1,
        "snakecase": 1...1, "kebabcase": 1...1, "titlecase": 1...1, "typeof": 1...1, "bool": 1...1,
        "string": 1...1, "number": 1...1, "concat": 1...64, "exists": 1...1,
    ]

    /// Applies `name` to evaluated arguments.
    static func apply(_ name: String, _ arguments: [JSON?]) -> JSON? {
        let first = arguments.first ?? nil
        switch name {
        case "contains":
            switch (first, arguments[1]) {
            case (.string(let text)?, .string(let part)?): return .bool(text.contains(part))
            case (.array(let items)?, let item?): return .bool(items.contains { equal($0, item) })
            default: return false
            }
        case "match":
            guard case .string(let text)? = first, case .string(let pattern)? = arguments[1] else { return false }
            // A computed pattern beyond the load-time limits matches nothing.
            guard RuleSetLimits.problem(with: pattern) == nil else { return .bool(false) }
            return .bool(Glob.matches(text, pattern: pattern))
        case "length":
            switch first {
            case .string(let text)?: return .int(Int64(text.count))
            case .array(let items)?: return .int(Int64(items.count))
            case .object(let members)?: return .int(Int64(members.count))
            case nil, .null?: return .int(0)
            default: return nil
            }
        case "lowercase": return mapString(first) { $0.lowercased() }
        case "uppercase": return mapString(first) { $0.uppercased() }
        case "snakecase": return mapString(first) { words($0).joined(separator: "_") }
        case "kebabcase": return mapString(first) { words($0).joined(separator: "-") }
        case "titlecase": return mapString(first) { words($0).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ") }
        case "typeof": return .string(first.map(typeName) ?? "null")
        case "bool":
            switch first {
            case .bool(let flag)?: return .bool(flag)
            case .string(let text)?: return .bool(text == "true" || (!text.isEmpty && text != "false" && text != "0"))
            case .int(let number)?: return .bool(number != 0)
            case .uint?: return true
            case .double(let number)?: return .bool(number != 0)
            case nil, .null?: return false
            default: return true
            }
        case "string": return first.map(stringValue) ?? .string("null")
        case "number":
            switch first {
            case .int?, .uint?, .double?: return first
            case .string(let text)?:
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if let integer = Int64(trimmed) { return .int(integer) }
                return Double(trimmed).flatMap { $0.isFinite ? JSON.double($0) : nil }
            case .bool(let flag)?: return .int(flag ? 1 : 0)
            default: return nil
            }
        case "concat": return .string(arguments.map { value in value.map { text($0) } ?? "" }.joined())
        default: return nil
        }
    }

    /// JSON type names: `string`, `number`, `boolean`, `null`, `list`, `object`.
    static func typeName(_ value: JSON) -> String {
        switch value {
        case .string: return "string"
        case .int, .uint, .double: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        case .array: return "list"
        case .object: return "object"
        }
    }

    /// Strict equality with numbers compared by value (`1 = 1.0`), strings by Unicode scalars
    /// (`"é"` is not `"e\u{301}"`, as in Segment's engine) and objects by content.
    static func equal(_ lhs: JSON, _ rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)):
            return left.hasSameScalars(as: right)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { equal(value, $0) } ?? false }
        default:
            if let left = number(lhs), let right = number(rhs) { return left == right }
            return lhs == rhs
        }
    }

    /// The value of a number for comparisons; integers compare exactly.
    static func number(_ value: JSON) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .uint(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    /// `to_string`: strings, objects and lists stay; numbers, Booleans and null become text.
    static func stringValue(_ value: JSON) -> JSON {
        switch value {
        case .string, .object, .array: return value
        default: return .string(JSONWriter.string(value))
        }
    }

    private static func text(_ value: JSON) -> String {
        if case .string(let string) = value { return string }
        return JSONWriter.string(value)
    }

    private static func mapString(_ value: JSON?, _ transform: (String) -> String) -> JSON? {
        switch value {
        case .string(let text)?: return .string(transform(text))
        case nil, .null?: return .null
        default: return value
        }
    }

    /// Lowercased words: split on non-alphanumerics and lower→upper boundaries.
    private static func words(_ text: String) -> [String] {
        Words.split(text).map { $0.lowercased() }
    }
}

/// Glob matching for `match`: `*` any run, `?` one character, `[a-z]`, `[^…]`, `\x` literal x.
/// The grammar is Go's `path.Match`, which Segment's filter engine ports: a malformed pattern —
/// an unclosed `[`, an empty class (`[]a]`), a class member that is a bare `-` or `]` (`[-]`,
/// `[x-]`, `[-x]`, `[a-b-c]`), a trailing `\` — is an error there, and matches nothing here.
/// Inside a class, `\` escapes: `[\]a]`, `[\-x]`, `[x\-]` are well formed.
enum Glob {
    /// A matcher for one pattern, prepared once: ASCII patterns of plain text and `*` (the usual
    /// case) match ASCII text by prefix, suffix and search over bytes; everything else goes
    /// through ``matches(_:pattern:)``, character by character.
    static func compile(_ pattern: String) -> @Sendable (String) -> Bool {
        guard isWellFormed(Array(pattern)) else { return { _ in false } }
        guard !pattern.contains(where: { $0 == "?" || $0 == "[" || $0 == "\\" }) else {
            return { matchesWellFormed($0, pattern: pattern) }
        }
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return { $0 == pattern } }
        guard parts.allSatisfy(PlainBytes.qualify) else { return { matchesWellFormed($0, pattern: pattern) } }
        let head = Array(parts[0].utf8), tail = Array(parts[parts.count - 1].utf8)
        let middle = parts[1..<(parts.count - 1)].filter { !$0.isEmpty }.map { Array($0.utf8) }
        // ASCII text (without `\r`, which pairs with `\n` into one character) compares bytes;
        // any other text compares characters.
        return { text in PlainBytes.match(text, head: head, middle: middle, tail: tail) ?? matchesWellFormed(text, pattern: pattern) }
    }

    /// Whether `text` matches `pattern`; `false` for a malformed pattern.
    static func matches(_ text: String, pattern: String) -> Bool {
        isWellFormed(Array(pattern)) && matchesWellFormed(text, pattern: pattern)
    }

    /// Whether `pattern` follows `path.Match`'s grammar. One pass, no recursion.
    static func isWellFormed(_ pattern: [Character]) -> Bool {
        var index = 0
        while index < pattern.count {
            switch pattern[index] {
            case "\\":
                guard index + 1 < pattern.count else { return false }
                index += 2
            case "[":
                index += 1
                if index < pattern.count, pattern[index] == "^" { index += 1 }
                var ranges = 0
                while !(index < pattern.count && pattern[index] == "]" && ranges > 0) {
                    guard let low = classMember(pattern, index) else { return false }
                    index = low
                    if pattern[index] == "-" {
                        guard let high = classMember(pattern, index + 1) else { return false }
                        index = high
                    }
                    ranges += 1
                }
                index += 1
            default:
                index += 1
            }
        }
        return true
    }

    /// Where a class member starting at `index` ends, or `nil` when there is none (`-`, `]`,
    /// the end) or nothing follows it (the class is unclosed).
    private static func classMember(_ pattern: [Character], _ index: Int) -> Int? {
        var index = index
        guard index < pattern.count, pattern[index] != "-", pattern[index] != "]" else { return nil }
        if pattern[index] == "\\" { index += 1 }
        index += 1
        return index < pattern.count ? index : nil
    }

    /// The general matcher for a well-formed pattern, character by character. Every token but
    /// `*` matches exactly one character, so a loop that backtracks to the last `*` decides it:
    /// no recursion, whatever the length of the text.
    private static func matchesWellFormed(_ text: String, pattern: String) -> Bool {
        let characters = Array(text)
        let pattern = Array(pattern)
        var textIndex = 0, patternIndex = 0
        var lastStar: (pattern: Int, text: Int)?
        while textIndex < characters.count {
            if patternIndex < pattern.count {
                var next: Int?
                switch pattern[patternIndex] {
                case "*":
                    lastStar = (patternIndex, textIndex)
                    patternIndex += 1
                    continue
                case "?":
                    next = patternIndex + 1
                case "[":
                    guard let (matched, after) = characterClass(pattern, patternIndex, characters, textIndex) else { return false }
                    if matched { next = after }
                case "\\" where patternIndex + 1 < pattern.count:
                    if characters[textIndex] == pattern[patternIndex + 1] { next = patternIndex + 2 }
                default:
                    if characters[textIndex] == pattern[patternIndex] { next = patternIndex + 1 }
                }
                if let next {
                    textIndex += 1
                    patternIndex = next
                    continue
                }
            }
            guard let star = lastStar else { return false }
            lastStar = (star.pattern, star.text + 1)
            textIndex = star.text + 1
            patternIndex = star.pattern + 1
        }
        while patternIndex < pattern.count, pattern[patternIndex] == "*" { patternIndex += 1 }
        return patternIndex == pattern.count
    }

    /// Whether the character at `textIndex` is in the class starting at `start`, and where the
    /// pattern continues; `nil` for an unclosed class.
    private static func characterClass(_ pattern: [Character], _ start: Int, _ text: [Character], _ textIndex: Int) -> (Bool, Int)? {
        var index = start + 1
        let negated = index < pattern.count && pattern[index] == "^"
        if negated { index += 1 }
        var matched = false
        var first = true
        while index < pattern.count, pattern[index] != "]" || first {
            first = false
            var low = pattern[index]
            if low == "\\", index + 1 < pattern.count {
                index += 1
                low = pattern[index]
            }
            var high = low
            if index + 2 < pattern.count, pattern[index + 1] == "-", pattern[index + 2] != "]" {
                high = pattern[index + 2]
                index += 2
            }
            if textIndex < text.count, low <= text[textIndex], text[textIndex] <= high { matched = true }
            index += 1
        }
        guard index < pattern.count else { return nil }
        guard textIndex < text.count else { return (false, index + 1) }
        return (matched != negated, index + 1)
    }
}

/// Glob matching over bytes, for text where a byte is a character (ASCII without `\r`).
enum PlainBytes {
    static func qualify(_ text: String) -> Bool { text.utf8.allSatisfy(isPlain) }

    /// An ASCII byte other than `\r`.
    private static func isPlain(_ byte: UInt8) -> Bool { byte < 0x80 && byte != 0x0D }

    /// Whether `text` is `head`, then each of `middle` in order, then `tail`, with anything in
    /// between; `nil` when `text` is not plain bytes (or not stored contiguously).
    static func match(_ text: String, head: [UInt8], middle: [[UInt8]], tail: [UInt8]) -> Bool? {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard bytes.allSatisfy(isPlain) else { return nil }
            guard bytes.count >= head.count + tail.count, equal(bytes, at: 0, head),
                equal(bytes, at: bytes.count - tail.count, tail)
            else { return false }
            var from = head.count
            let end = bytes.count - tail.count
            for part in middle {
                guard let found = firstIndex(of: part, in: bytes, from: from, end: end) else { return false }
                from = found + part.count
            }
            return true
        } ?? nil
    }

    /// Whether `bytes` holds `part` at `offset` (which leaves room for it).
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ part: [UInt8]) -> Bool {
        part.withUnsafeBufferPointer { part in
            guard let base = bytes.baseAddress, let other = part.baseAddress else { return part.isEmpty }
            return memcmp(base + offset, other, part.count) == 0
        }
    }

    /// The first place `part` occurs in `bytes[from..<end]`: Knuth–Morris–Pratt, so the cost is
    /// linear in the text and the part, however nearly the text matches.
    private static func firstIndex(of part: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int? {
        guard part.count <= end - from else { return nil }
        guard !part.isEmpty else { return from }
        // fallback[i]: the length of the longest proper prefix of part[0...i] that is also its suffix.
        var fallback = [Int](repeating: 0, count: part.count)
        var length = 0
        for index in 1..<part.count {
            while length > 0, part[index] != part[length] { length = fallback[length - 1] }
            if part[index] == part[length] { length += 1 }
            fallback[index] = length
        }
        var matched = 0
        for index in from..<end {
            while matched > 0, bytes[index] != part[matched] { matched = fallback[matched - 1] }
            if bytes[index] == part[matched] { matched += 1 }
            if matched == part.count { return index - part.count + 1 }
        }
        return nil
    }
}
