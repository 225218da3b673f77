import MetaRouterCore

/// Swift names for a plan's names, which may hold spaces, punctuation, leading digits, emoji or
/// Swift keywords. The same plan always gives the same names; the wire keeps the plan's.
///
/// Every generated type lives inside the `PlannedEvents` namespace and every type the generated
/// code names is written with its module (`Swift.String`, `Foundation.Date`, `MetaRouter.JSON`),
/// so a planned name can hide none of Swift's, Foundation's, SwiftUI's, the SDK's or the app's.
/// What is left to reserve is the few names the namespace itself uses and those Swift gives a
/// meaning inside a type (``reservedTypes``, ``reservedMembers``).
enum SwiftNames {
    /// Every keyword of Swift 6 (declarations, statements, expressions and types, the contextual
    /// ones a member may not take unescaped too): spelled in backticks where they are names.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "precedencegroup", "private",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw",
        "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "async", "some", "any", "Type", "Protocol", "_",
    ]
    /// Names a generated member may not take, even in backticks: the generated code's own
    /// (`eventName`, `options`, the coding keys), what `Codable`, `Hashable` and the
    /// initializer give every type (`encode`, `hash`, `hashValue`, `init`), and `inout`, `var`,
    /// `let`, `self`, `Self`, `Type`, `Protocol` (no spelling of them works both as a parameter
    /// and as a label, or after a dot).
    static let reservedMembers: Set<String> = [
        "eventName", "options", "encode", "hash", "hashValue", "CodingKeys", "Type", "Protocol", "init", "inout", "var", "let",
        "self", "Self", "deinit", "subscript", "_",
    ]
    /// Type names a generated type may not take (a trailing `_` is added): the namespace and
    /// its protocols and key type, the traits types, the modules the code names types through, the coding
    /// keys every struct has, and Swift's keywords (`Type`, `Protocol`, `Self`, `Any`, …).
    static let reservedTypes: Set<String> = [
        "PlannedEvents", "Event", "Value", "Key", "IdentifyTraits", "GroupTraits", "CodingKeys", "Swift", "Foundation", "MetaRouter",
        "MetaRouterCore", "Type", "Protocol", "Self", "Any",
    ]

    /// The words of `name`: runs of ASCII letters and digits, split at case changes too.
    static func words(_ name: String) -> [String] {
        Words.split(name, asciiOnly: true)
    }

    /// A name for one with no ASCII letter or digit: `fallback` for `""`, else `fallback`
    /// followed by its first scalars in hex, so that `"!!!"` and `"???"` stay apart.
    private static func unspellable(_ name: String, _ fallback: String) -> String {
        guard !name.isEmpty else { return fallback }
        return fallback + "_" + name.unicodeScalars.prefix(8).map { String($0.value, radix: 16) }.joined(separator: "_")
    }

    /// `Order Completed` → `OrderCompleted`; `""` → `fallback`; all punctuation → `fallback`
    /// and the punctuation's code points.
    static func type(_ name: String, fallback: String) -> String {
        let joined = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        var result = joined.isEmpty ? unspellable(name, fallback) : joined
        if result.first?.isNumber == true { result = "_" + result }
        if reservedTypes.contains(result) || keywords.contains(result) { result += "_" }
        return result
    }

    /// `order_id` → `orderId`; a keyword gets backticks when spelled (see ``spelled(_:)``).
    static func member(_ name: String, fallback: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return unspellable(name, fallback) }
        let head = first.allSatisfy(\.isUppercase) ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        var result = head + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if result.first?.isNumber == true { result = "_" + result }
        if reservedMembers.contains(result) { result += "_" }
        return result
    }

    /// `name` as it is written in code: a keyword in backticks.
    static func spelled(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) { return "\"\(text)\"" }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `text` on one line: control characters and line or paragraph separators become spaces.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            let category = scalar.properties.generalCategory
            return category == .control || category == .lineSeparator || category == .paragraphSeparator ? " " : scalar
        }))
    }

    /// A plan's name inside a doc comment's code span: one line, no backticks.
    static func inDoc(_ name: String) -> String {
        oneLine(name).replacingOccurrences(of: "`", with: "'")
    }

    /// `text` as doc-comment lines (no line breaks inside, at most 400 characters).
    static func docLines(_ text: String) -> [String] {
        let flat = oneLine(text.split(whereSeparator: \.isNewline).joined(separator: " "))
        let short = flat.count > 400 ? String(flat.prefix(400)) + "…" : flat
        return short.isEmpty ? [] : [short.replacingOccurrences(of: "*/", with: "* /")]
    }
}
