import Foundation

/// A linear-time matcher for the regular expressions tracking plans mostly use — literals,
/// `.`, classes (`[a-z0-9_-]`, `[^…]`, `\d \w \s` and their negations), the quantifiers
/// `? * + {n} {n,} {n,m}`, and `^` / `$` at the ends — run as a bit-set NFA over the string's
/// code points: no backtracking, no allocation, no bridging to `NSString`. A pattern with
/// anything else (groups, alternation, lookaround, back-references, `\b`, lazy quantifiers) or
/// more than 63 positions once counted repetitions are expanded is not taken
/// (`init` returns `nil`) and `NSRegularExpression` runs it instead.
///
/// `\d`, `\w` and `\s` take Unicode's digits, letters and spaces, as `NSRegularExpression` (the
/// fallback) and Python's `re` (under the reference validator) do.
struct SimplePattern: Sendable {
    private enum Category: Sendable {
        case digit, word, space

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch self {
            case .digit: return properties.numericType == .decimal
            case .word: return scalar == "_" || properties.isAlphabetic || properties.numericType == .decimal
            case .space: return properties.isWhitespace
            }
        }
    }

    private enum Atom: Sendable {
        case scalar(Unicode.Scalar)
        case set([ClosedRange<UInt32>], [Category], negated: Bool)
        case any
    }

    private var atoms: [Atom] = []
    /// Bit `i`: atom `i` repeats (`*`), so matching it keeps the state where it is.
    private var repeating: UInt64 = 0
    /// Bit `i`: atom `i` may be skipped (`?` or `*`).
    private var skippable: UInt64 = 0
    private var anchoredStart = false
    private var anchoredEnd = false


    /// The matcher for `pattern`, or `nil` when it uses more than this subset.
    init?(_ pattern: String) {
        var scalars = Array(pattern.unicodeScalars)[...]
        if scalars.first == "^" {
            anchoredStart = true
            scalars.removeFirst()
        }
        if scalars.last == "$", !(scalars.dropLast().last == "\\") {
            anchoredEnd = true
            scalars.removeLast()
        }
        while let next = scalars.first {
            scalars.removeFirst()
            let atom: Atom
            switch next {
            case "(", ")", "|", "^", "$", "*", "+", "?", "{", "}", "]": return nil
            case ".": atom = .any
            case "[": guard let set = Self.parseClass(&scalars) else { return nil }; atom = set
            case "\\": guard let escaped = Self.parseEscape(&scalars) else { return nil }; atom = escaped
            default: atom = .scalar(next)
            }
            guard addQuantified(atom, &scalars) else { return nil }
        }
    }

    /// Whether the pattern matches somewhere in `text` (anywhere, unless anchored).
    func matches(_ text: String) -> Bool {
        let accept = UInt64(1) << UInt64(atoms.count)
        var states = closure(1)
        if states & accept != 0, !anchoredEnd { return true }
        for scalar in text.unicodeScalars {
            var next: UInt64 = 0
            var pending = states & (accept - 1)
            while pending != 0 {
                let index = pending.trailingZeroBitCount
                pending &= pending - 1
                guard Self.matches(atoms[index], scalar) else { continue }
                next |= repeating & (1 << UInt64(index)) != 0 ? 1 << UInt64(index) : 1 << UInt64(index + 1)
            }
            if !anchoredStart { next |= 1 }
            states = closure(next)
            if states & accept != 0, !anchoredEnd { return true }
            if states == 0 { return false }
        }
        return states & accept != 0
    }

    private func closure(_ states: UInt64) -> UInt64 {
        var current = states
        while true {
            let widened = current | ((current & skippable) << 1)
            if widened == current { return current }
            current = widened
        }
    }

    private mutating func addQuantified(_ atom: Atom, _ rest: inout ArraySlice<Unicode.Scalar>) -> Bool {
        var minimum = 1
        var maximum: Int? = 1
        switch rest.first {
        case "?": rest.removeFirst(); minimum = 0
        case "*": rest.removeFirst(); minimum = 0; maximum = nil
        case "+": rest.removeFirst(); maximum = nil
        case "{":
            guard let bounds = Self.parseBounds(&rest) else { return false }
            (minimum, maximum) = bounds
        default: break
        }
        if rest.first == "?" || rest.first == "*" || rest.first == "+" || rest.first == "{" { return false }
        let copies = minimum + (maximum.map { $0 - minimum } ?? 1)
        guard atoms.count + copies <= 63 else { return false }
        for _ in 0..<minimum { atoms.append(atom) }
        if let maximum {
            for _ in minimum..<maximum {
                skippable |= 1 << UInt64(atoms.count)
                atoms.append(atom)
            }
        } else {
            skippable |= 1 << UInt64(atoms.count)
            repeating |= 1 << UInt64(atoms.count)
            atoms.append(atom)
        }
        return true
    }

    private static func parseBounds(_ rest: inout ArraySlice<Unicode.Scalar>) -> (Int, Int?)? {
        guard let close = rest.firstIndex(of: "}") else { return nil }
        let body = String(String.UnicodeScalarView(rest[rest.index(after: rest.startIndex)..<close]))
        rest = rest[rest.index(after: close)...]
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 2, let low = Int(parts[0]), low <= 63 else { return nil }
        if parts.count == 1 { return (low, low) }
        if parts[1].isEmpty { return (low, nil) }
        guard let high = Int(parts[1]), high >= low, high <= 63 else { return nil }
        return (low, high)
    }

    private static func parseEscape(_ rest: inout ArraySlice<Unicode.Scalar>) -> Atom? {
        guard let next = rest.first else { return nil }
        rest.removeFirst()
        switch next {
        case "d": return .set([], [.digit], negated: false)
        case "D": return .set([], [.digit], negated: true)
        case "w": return .set([], [.word], negated: false)
        case "W": return .set([], [.word], negated: true)
        case "s": return .set([], [.space], negated: false)
        case "S": return .set([], [.space], negated: true)
        case "n": return .scalar("\n")
        case "t": return .scalar("\t")
        case "r": return .scalar("\r")
        default:
            // Escaped punctuation stands for itself; a letter or digit means something this
            // subset does not do (`\b`, a back-reference, `\u…`).
            guard next.isASCII, !next.properties.isAlphabetic, !("0"..."9").contains(next) else { return nil }
            return .scalar(next)
        }
    }

    private static func parseClass(_ rest: inout ArraySlice<Unicode.Scalar>) -> Atom? {
        var negated = false
        if rest.first == "^" {
            negated = true
            rest.removeFirst()
        }
        var ranges: [ClosedRange<UInt32>] = []
        var categories: [Category] = []
        var first = true
        while let next = rest.first {
            rest.removeFirst()
            if next == "]", !first { return .set(ranges, categories, negated: negated) }
            first = false
            var low: UInt32
            if next == "\\" {
                guard let escaped = rest.first else { return nil }
                rest.removeFirst()
                switch escaped {
                case "d": categories.append(.digit); continue
                case "w": categories.append(.word); continue
                case "s": categories.append(.space); continue
                case "n": low = 10
                case "t": low = 9
                case "r": low = 13
                default:
                    guard escaped.isASCII, !escaped.properties.isAlphabetic, !("0"..."9").contains(escaped) else { return nil }
                    low = escaped.value
                }
            } else if next == "[" || next == "]" {
                return nil
            } else {
                low = next.value
            }
            if rest.first == "-", let high = rest.dropFirst().first, high != "]", high != "\\", high != "[" {
                rest.removeFirst(2)
                guard high.value >= low else { return nil }
                ranges.append(low...high.value)
            } else {
                ranges.append(low...low)
            }
        }
        return nil
    }

    private static func matches(_ atom: Atom, _ scalar: Unicode.Scalar) -> Bool {
        switch atom {
        case .scalar(let expected): return scalar == expected
        case .any: return scalar != "\n" && scalar != "\r" && scalar != "\u{2028}" && scalar != "\u{2029}"
        case .set(let ranges, let categories, let negated):
            let member = ranges.contains { $0.contains(scalar.value) } || categories.contains { $0.contains(scalar) }
            return member != negated
        }
    }
}
