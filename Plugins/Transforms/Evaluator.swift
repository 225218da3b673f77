import MetaRouterCore

/// Compiles expressions into closures over events: paths are resolved once, so evaluating a
/// condition walks no syntax tree.
enum Evaluator {
    typealias Value = @Sendable (Event) -> JSON?

    typealias Predicate = @Sendable (Event) -> Bool

    /// A condition: matches only when the expression is exactly `true`. Boolean structure
    /// compiles to predicates directly, so no intermediate values are built.
    static func condition(_ expression: Expression) -> Predicate {
        if let comparison = Comparison.predicate(expression) { return comparison }
        switch expression {
        case .and(let terms):
            return chain(terms, empty: true) { earlier, next in { earlier($0) && next($0) } }
        case .or(let terms):
            return chain(terms, empty: false) { earlier, next in { earlier($0) || next($0) } }
        case .not(let inner):
            let predicate = condition(inner)
            return { !predicate($0) }
        case .literal(let value):
            let result = value == .bool(true)
            return { _ in result }
        case .compare(let comparison, let lhs, .literal(let literal)):
            let left = compile(lhs)
            return { event in compare(comparison, left(event) ?? .null, literal) }
        case .compare(let comparison, let lhs, let rhs):
            let left = compile(lhs)
            let right = compile(rhs)
            return { event in compare(comparison, left(event) ?? .null, right(event) ?? .null) }
        case .call("match", let arguments) where arguments.count == 2:
            guard case .literal(.string(let pattern)) = arguments[1] else { break }
            let subject = compile(arguments[0])
            let matcher = Glob.compile(pattern)
            return { event in
                guard case .string(let text)? = subject(event) else { return false }
                return matcher(text)
            }
        case .call("exists", let arguments):
            guard case .path(let path) = arguments.first else { return { _ in false } }
            if let key = ObjectKeyPath(path) { return { key.isPresent(in: $0) } }
            let read = EventAccess.reader(path)
            return { read($0) != nil }
        default:
            break
        }
        let value = compile(expression)
        return { value($0) == .bool(true) }
    }

    /// The terms' predicates joined left to right by `join`; `empty` for no terms. Chained
    /// closures, not an array of them: closures kept in an array are called through conversion
    /// thunks.
    private static func chain(
        _ terms: [Expression], empty: Bool, _ join: (@escaping Predicate, @escaping Predicate) -> Predicate
    ) -> Predicate {
        guard let first = terms.first else { return { _ in empty } }
        var combined = condition(first)
        for term in terms.dropFirst() { combined = join(combined, condition(term)) }
        return combined
    }

    /// A value; `nil` from the closure means missing.
    static func compile(_ expression: Expression) -> Value {
        switch expression {
        case .path(let path):
            return EventAccess.reader(path)
        case .literal(let value):
            return { _ in value }
        case .list(let items):
            let compiled = items.map(compile)
            return { event in .array(compiled.map { $0(event) ?? .null }) }
        case .not(let inner):
            let value = compile(inner)
            return { event in .bool(value(event) != .bool(true)) }
        case .and(let terms):
            let compiled = terms.map(compile)
            return { event in .bool(compiled.allSatisfy { $0(event) == .bool(true) }) }
        case .or(let terms):
            let compiled = terms.map(compile)
            return { event in .bool(compiled.contains { $0(event) == .bool(true) }) }
        case .coalesce(let first, let fallback):
            let primary = compile(first)
            let secondary = compile(fallback)
            return { event in
                switch primary(event) {
                case nil, .null?: return secondary(event)
                case let value: return value
                }
            }
        case .compare(let comparison, let lhs, let rhs):
            let left = compile(lhs)
            let right = compile(rhs)
            return { event in .bool(compare(comparison, left(event) ?? .null, right(event) ?? .null)) }
        case .call("exists", let arguments):
            guard case .path(let path) = arguments.first else { return { _ in false } }
            let read = EventAccess.reader(path)
            return { event in .bool(read(event) != nil) }
        case .call(let name, let arguments):
            let compiled = arguments.map(compile)
            return { event in Functions.apply(name, compiled.map { $0(event) }) }
        }
    }

    static func compare(_ comparison: ComparisonOperator, _ lhs: JSON, _ rhs: JSON) -> Bool {
        switch comparison {
        case .equal: return Functions.equal(lhs, rhs)
        case .notEqual: return !Functions.equal(lhs, rhs)
        case .in:
            guard case .array(let items) = rhs else { return false }
            return items.contains { Functions.equal(lhs, $0) }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let left = Functions.number(lhs), let right = Functions.number(rhs) else { return false }
            switch comparison {
            case .less: return left < right
            case .lessOrEqual: return left <= right
            case .greater: return left > right
            default: return left >= right
            }
        }
    }
}
