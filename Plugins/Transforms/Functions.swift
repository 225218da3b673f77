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

    /// Strict equality with numbers compared by value (`1 = 1.0`) and objects by content.
    static func equal(_ lhs: JSON, _ rhs: JSON) -> Bool {
        switch (lhs, rhs) {
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
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in text {
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase, previousWasLower, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(Character(character.lowercased()))
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

/// Glob matching for `match`: `*` any run, `?` one character, `[a-z]`, `[^…]`, `\x` literal x.
/// A malformed pattern (an unclosed `[`) matches nothing.
enum Glob {
    /// A matcher for one pattern, prepared once: patterns of plain text and `*` (the usual case)
    /// match by prefix, suffix and substring search; others fall back to ``matches(_:pattern:)``.
    static func compile(_ pattern: String) -> @Sendable (String) -> Bool {
        guard !pattern.contains(where: { $0 == "?" || $0 == "[" || $0 == "\\" }) else {
            return { matches($0, pattern: pattern) }
        }
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return { $0 == pattern } }
        let head = parts[0]
        let tail = parts[parts.count - 1]
        let middle = Array(parts[1..<(parts.count - 1)]).filter { !$0.isEmpty }
        return { text in
            guard text.count >= head.count + tail.count, text.hasPrefix(head), text.hasSuffix(tail) else { return false }
            var remaining = text.dropFirst(head.count).dropLast(tail.count)
            for part in middle {
                guard let range = remaining.range(of: part) else { return false }
                remaining = remaining[range.upperBound...]
            }
            return true
        }
    }

    static func matches(_ text: String, pattern: String) -> Bool {
        let characters = Array(text)
        let pattern = Array(pattern)
        var memo: [Int: Bool] = [:]
        func match(_ textIndex: Int, _ patternIndex: Int) -> Bool {
            let key = textIndex * (pattern.count + 1) + patternIndex
            if let known = memo[key] { return known }
            let result: Bool
            if patternIndex == pattern.count {
                result = textIndex == characters.count
            } else {
                switch pattern[patternIndex] {
                case "*":
                    result = match(textIndex, patternIndex + 1) || (textIndex < characters.count && match(textIndex + 1, patternIndex))
                case "?":
                    result = textIndex < characters.count && match(textIndex + 1, patternIndex + 1)
                case "[":
                    guard let (matched, next) = characterClass(pattern, patternIndex, characters, textIndex) else { return false }
                    result = matched && match(textIndex + 1, next)
                case "\\" where patternIndex + 1 < pattern.count:
                    result = textIndex < characters.count && characters[textIndex] == pattern[patternIndex + 1]
                        && match(textIndex + 1, patternIndex + 2)
                default:
                    result = textIndex < characters.count && characters[textIndex] == pattern[patternIndex]
                        && match(textIndex + 1, patternIndex + 1)
                }
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
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
