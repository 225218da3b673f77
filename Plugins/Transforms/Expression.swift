import MetaRouterCore

/// A parsed condition or value expression, before compilation.
package indirect enum Expression: Sendable, Hashable {
    /// A field of the event, e.g. `properties.total` → `["properties", "total"]`.
    case path([String])
    /// A literal value.
    case literal(JSON)
    /// A list literal whose elements are expressions.
    case list([Expression])
    /// `!x`.
    case not(Expression)
    /// `a and b and …` (short-circuit).
    case and([Expression])
    /// `a or b or …` (short-circuit).
    case or([Expression])
    /// `a ?? b`: `a` unless it is missing or null.
    case coalesce(Expression, Expression)
    /// `a = b`, `a < b`, `a in b`, …
    case compare(ComparisonOperator, Expression, Expression)
    /// `name(arguments…)`.
    case call(String, [Expression])
}

/// The comparison operators.
package enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// Strict equality (`1 = 1.0`, `5 != "5"`).
    case equal = "="
    /// Strict inequality.
    case notEqual = "!="
    /// Numeric less-than.
    case less = "<"
    /// Numeric less-or-equal.
    case lessOrEqual = "<="
    /// Numeric greater-than.
    case greater = ">"
    /// Numeric greater-or-equal.
    case greaterOrEqual = ">="
    /// Membership in a list.
    case `in`
}

/// A dotted path split into components: `\` escapes any character (`properties.product\ name`,
/// `a\.b` is one key). Empty text is the event itself.
package enum FieldPath {
    /// The components of `text`.
    package static func split(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var components: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        components.append(current)
        return components
    }

    /// The value at `path` in `value`; array elements by decimal index. `nil` when missing.
    package static func read(_ path: [String], in value: JSON) -> JSON? {
        var current = value
        for component in path {
            switch current {
            case .object(let members):
                guard let next = members[component] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(component), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }
}
