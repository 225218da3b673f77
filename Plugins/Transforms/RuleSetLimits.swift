import MetaRouterCore

/// What a rule set loaded from outside the app (a file, a download, Segment's settings) may ask
/// of every event: every rule runs on every event, so a valid but huge set — ten thousand
/// rules with many-star globs — would throttle the pipeline. A set beyond these limits is
/// refused at load with a ``RuleLoadError`` that says which limit, and the set in force stays.
package enum RuleSetLimits {
    /// Rules in one set.
    package static let maxRules = 1_000
    /// Characters in one `match` pattern.
    package static let maxGlobLength = 256
    /// `*` in one `match` pattern.
    package static let maxGlobStars = 16

    /// Throws when `set` goes beyond a limit.
    package static func check(_ set: RuleSet) throws {
        guard set.rules.count <= maxRules else {
            throw RuleLoadError(location: "rules", message: "\(set.rules.count) rules, above the limit of \(maxRules)")
        }
        for (index, rule) in set.rules.enumerated() {
            var pending: [Expression] = rule.condition.map { [$0] } ?? []
            for action in rule.actions { if case .set(_, let value) = action { pending.append(value) } }
            // An explicit stack: the expression came from outside and its depth is not ours.
            while let expression = pending.popLast() {
                switch expression {
                case .path, .literal: break
                case .list(let items), .and(let items), .or(let items): pending += items
                case .not(let inner): pending.append(inner)
                case .coalesce(let first, let second), .compare(_, let first, let second): pending += [first, second]
                case .call(let name, let arguments):
                    if name == "match", arguments.count == 2, case .literal(.string(let pattern)) = arguments[1],
                        let problem = problem(with: pattern)
                    {
                        throw RuleLoadError(location: "rules[\(index)] (\(rule.name))", message: problem)
                    }
                    pending += arguments
                }
            }
        }
    }

    /// Why `pattern` is beyond the limits, or `nil`.
    package static func problem(with pattern: String) -> String? {
        let length = pattern.count
        if length > maxGlobLength { return "a match pattern of \(length) characters, above the limit of \(maxGlobLength)" }
        let stars = pattern.reduce(0) { $1 == "*" ? $0 + 1 : $0 }
        if stars > maxGlobStars { return "a match pattern with \(stars) '*', above the limit of \(maxGlobStars)" }
        return nil
    }
}
