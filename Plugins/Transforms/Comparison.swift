import MetaRouterCore

extension Evaluator {
    /// The comparisons rules use most, compiled without building JSON values for either side: a
    /// text field against a string (`event = "Order Completed"`, `type = "track"`), any field
    /// against a number (`properties.price > 10`) or against a list of literals
    /// (`properties.currency in ["EUR", "USD"]`). Each gives what ``Evaluator/compare(_:_:_:)``
    /// gives for the same operands, missing fields included (they compare as `null`).
    enum Comparison {
        /// A predicate for `expression` when it is one of those shapes; `nil` otherwise.
        static func predicate(_ expression: Expression, plan: ReadPlan = .none) -> Predicate? {
            guard case .compare(let comparison, .path(let path), let right) = expression else { return nil }
            switch (comparison, right) {
            case (.equal, .literal(.string(let text))), (.notEqual, .literal(.string(let text))):
                let wanted = comparison == .equal
                if path == ["type"] {
                    // An event's type is one of six names: compared as the type itself.
                    guard let type = EventType(rawValue: text) else { return { _, _ in !wanted } }
                    return { event, _ in (event.type == type) == wanted }
                }
                guard let read = EventAccess.textReader(path) else { return nil }
                if text.isASCII { return { event, _ in (read(event)?.hasSameScalars(asASCII: text) ?? false) == wanted } }
                return { event, _ in (read(event)?.hasSameScalars(as: text) ?? false) == wanted }
            case (.less, .literal(let literal)), (.lessOrEqual, .literal(let literal)),
                (.greater, .literal(let literal)), (.greaterOrEqual, .literal(let literal)):
                return numeric(comparison, EventAccess.reader(path, plan: plan), Functions.number(literal))
            case (.in, .list(let items)):
                return membership(EventAccess.reader(path, plan: plan), items)
            default:
                return nil
            }
        }

        /// `read(event) ⋚ bound`; never true when either side is not a number.
        private static func numeric(_ comparison: ComparisonOperator, _ read: @escaping EventAccess.Reader, _ bound: Double?) -> Predicate {
            guard let bound else { return { _, _ in false } }
            @Sendable func value(_ event: Event, _ cache: ReadCache) -> Double? { read(event, cache).flatMap(Functions.number) }
            switch comparison {
            case .less: return { value($0, $1).map { $0 < bound } ?? false }
            case .lessOrEqual: return { value($0, $1).map { $0 <= bound } ?? false }
            case .greater: return { value($0, $1).map { $0 > bound } ?? false }
            default: return { value($0, $1).map { $0 >= bound } ?? false }
            }
        }

        /// Whether `read(event)` equals one of `items`, when they are all literals; `nil` when
        /// one is not. A list of strings is matched as text (by Unicode scalars).
        private static func membership(_ read: @escaping EventAccess.Reader, _ items: [Expression]) -> Predicate? {
            let literals = items.compactMap { item -> JSON? in
                if case .literal(let value) = item { return value } else { return nil }
            }
            guard literals.count == items.count else { return nil }
            let texts = literals.compactMap(\.stringValue)
            if texts.count == literals.count {
                let ascii = texts.allSatisfy(\.isASCII)
                return { event, cache in
                    guard case .string(let text)? = read(event, cache) else { return false }
                    return ascii ? texts.contains { text.hasSameScalars(asASCII: $0) } : texts.contains { $0.hasSameScalars(as: text) }
                }
            }
            return { event, cache in
                let value = read(event, cache) ?? .null
                return literals.contains { Functions.equal(value, $0) }
            }
        }
    }
}
