import MetaRouterCore

/// Compiles expressions into closures over events: paths are resolved once, so evaluating a
/// condition walks no syntax tree.
enum Evaluator {
    /// A value, read from the event or from the call's ``ReadCache``; `nil` means missing.
    typealias Value = @Sendable (Event, ReadCache) -> JSON?

    /// A condition over the event (and the call's ``ReadCache``).
    typealias Predicate = @Sendable (Event, ReadCache) -> Bool

    /// A condition: matches only when the expression is exactly `true`. Boolean structure
    /// compiles to predicates directly, so no intermediate values are built. Keys and
    /// conditions `plan` caches are worked out once per call.
    static func condition(_ expression: Expression, plan: ReadPlan = .none) -> Predicate {
        let predicate = uncachedCondition(expression, plan: plan)
        guard let slot = plan.slot(forCondition: expression) else { return predicate }
        return { event, cache in cache.truth(in: slot) { predicate(event, cache) } }
    }

    private static func uncachedCondition(_ expression: Expression, plan: ReadPlan) -> Predicate {
        if let comparison = Comparison.predicate(expression, plan: plan) { return comparison }
        switch expression {
        case .and(let terms):
            return chain(terms, empty: true, plan: plan) { earlier, next in { earlier($0, $1) && next($0, $1) } }
        case .or(let terms):
            return chain(terms, empty: false, plan: plan) { earlier, next in { earlier($0, $1) || next($0, $1) } }
        case .not(let inner):
            let predicate = condition(inner, plan: plan)
            return { !predicate($0, $1) }
        case .literal(let value):
            let result = value == .bool(true)
            return { _, _ in result }
        case .compare(let comparison, let lhs, .literal(let literal)):
            let left = compile(lhs, plan: plan)
            return { event, cache in compare(comparison, left(event, cache) ?? .null, literal) }
        case .compare(let comparison, let lhs, let rhs):
            let left = compile(lhs, plan: plan)
            let right = compile(rhs, plan: plan)
            return { event, cache in compare(comparison, left(event, cache) ?? .null, right(event, cache) ?? .null) }
        case .call("match", let arguments) where arguments.count == 2:
            guard case .literal(.string(let pattern)) = arguments[1] else { break }
            let matcher = Glob.compile(pattern)
            if case .path(let path) = arguments[0], let text = EventAccess.textReader(path) {
                return { event, _ in text(event).map(matcher) ?? false }
            }
            let subject = compile(arguments[0], plan: plan)
            return { event, cache in
                guard case .string(let text)? = subject(event, cache) else { return false }
                return matcher(text)
            }
        case .call("exists", let arguments):
            guard case .path(let path) = arguments.first else { return { _, _ in false } }
            if let key = ObjectKeyPath(path), plan.slot(for: key) == nil { return { event, _ in key.isPresent(in: event) } }
            let read = EventAccess.reader(path, plan: plan)
            return { read($0, $1) != nil }
        default:
            break
        }
        let value = compile(expression, plan: plan)
        return { value($0, $1) == .bool(true) }
    }

    /// The terms' predicates joined in order by `join`; `empty` for no terms. Chained closures,
    /// not an array of them: closures kept in an array are called through conversion thunks.
    /// Joined by halves, so a chain of any length nests its closures only log2(terms) deep.
    private static func chain(
        _ terms: [Expression], empty: Bool, plan: ReadPlan, _ join: (@escaping Predicate, @escaping Predicate) -> Predicate
    ) -> Predicate {
        func joined(_ terms: ArraySlice<Expression>) -> Predicate {
            guard terms.count > 1 else { return condition(terms[terms.startIndex], plan: plan) }
            let middle = terms.startIndex + terms.count / 2
            return join(joined(terms[..<middle]), joined(terms[middle...]))
        }
        guard !terms.isEmpty else { return { _, _ in empty } }
        return joined(terms[...])
    }

    /// A value; `nil` from the closure means missing. Keys `plan` caches are read once per call.
    static func compile(_ expression: Expression, plan: ReadPlan = .none) -> Value {
        func compiled(_ expression: Expression) -> Value { compile(expression, plan: plan) }
        switch expression {
        case .path(let path):
            return EventAccess.reader(path, plan: plan)
        case .literal(let value):
            return { _, _ in value }
        case .list(let items):
            let values = items.map(compiled)
            return { event, cache in .array(values.map { $0(event, cache) ?? .null }) }
        case .not(let inner):
            let value = compiled(inner)
            return { event, cache in .bool(value(event, cache) != .bool(true)) }
        case .and(let terms):
            let values = terms.map(compiled)
            return { event, cache in .bool(values.allSatisfy { $0(event, cache) == .bool(true) }) }
        case .or(let terms):
            let values = terms.map(compiled)
            return { event, cache in .bool(values.contains { $0(event, cache) == .bool(true) }) }
        case .coalesce(let first, let fallback):
            let primary = compiled(first)
            let secondary = compiled(fallback)
            return { event, cache in
                switch primary(event, cache) {
                case nil, .null?: return secondary(event, cache)
                case let value: return value
                }
            }
        case .compare(let comparison, let lhs, let rhs):
            let left = compiled(lhs)
            let right = compiled(rhs)
            return { event, cache in .bool(compare(comparison, left(event, cache) ?? .null, right(event, cache) ?? .null)) }
        case .call("exists", let arguments):
            guard case .path(let path) = arguments.first else { return { _, _ in false } }
            let read = EventAccess.reader(path, plan: plan)
            return { event, cache in .bool(read(event, cache) != nil) }
        case .call(let name, let arguments):
            let values = arguments.map(compiled)
            return { event, cache in Functions.apply(name, values.map { $0(event, cache) }) }
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
