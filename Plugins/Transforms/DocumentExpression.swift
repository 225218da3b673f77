import MetaRouterCore

/// An expression of the rule language evaluated over any JSON document instead of an event:
/// paths start at the document's top level (`data.title`, `signal.data.url`). The semantics are
/// the rule language's (missing is null, strict `=`, a condition holds only when exactly
/// `true`); it walks the parsed tree, so it suits signals and other low-rate documents, while
/// event rules keep their compiled closures.
package struct DocumentExpression: Sendable, Hashable {
    /// The parsed expression.
    package let expression: Expression

    /// Parses `text` (nesting limited as for rules).
    package init(_ text: String) throws(RuleParseError) {
        expression = try ExpressionParser.parse(text)
    }

    /// Wraps a parsed expression.
    package init(_ expression: Expression) {
        self.expression = expression
    }

    /// The value in `document`; `nil` when missing.
    package func value(in document: JSON) -> JSON? {
        Self.evaluate(expression, document, depth: 0)
    }

    /// Whether the expression is exactly `true` in `document`.
    package func matches(_ document: JSON) -> Bool {
        value(in: document) == .bool(true)
    }

    /// Trees deeper than this (only code can build them; the parser stops at 64) evaluate as
    /// missing rather than recursing on.
    static let maximumDepth = 256

    private static func evaluate(_ expression: Expression, _ document: JSON, depth: Int) -> JSON? {
        guard depth < maximumDepth else { return nil }
        func evaluate(_ expression: Expression, _ document: JSON) -> JSON? {
            Self.evaluate(expression, document, depth: depth + 1)
        }
        switch expression {
        case .path(let path): return FieldPath.read(path, in: document)
        case .literal(let value): return value
        case .list(let items): return .array(items.map { evaluate($0, document) ?? .null })
        case .not(let inner): return .bool(evaluate(inner, document) != .bool(true))
        case .and(let terms): return .bool(terms.allSatisfy { evaluate($0, document) == .bool(true) })
        case .or(let terms): return .bool(terms.contains { evaluate($0, document) == .bool(true) })
        case .coalesce(let first, let fallback):
            switch evaluate(first, document) {
            case nil, .null?: return evaluate(fallback, document)
            case let value: return value
            }
        case .compare(let comparison, let lhs, let rhs):
            return .bool(Evaluator.compare(comparison, evaluate(lhs, document) ?? .null, evaluate(rhs, document) ?? .null))
        case .call("exists", let arguments):
            guard case .path(let path) = arguments.first else { return .bool(false) }
            return .bool(FieldPath.read(path, in: document) != nil)
        case .call(let name, let arguments):
            return Functions.apply(name, arguments.map { evaluate($0, document) })
        }
    }
}
