import MetaRouterCore

/// What ``ReadCache`` keeps for one rule set, worked out once, when the set is compiled:
/// - the keys of object fields that its conditions and actions read two times or more and that
///   no action of the set writes (nor the whole object, nor the whole event);
/// - the conditions (a rule's whole condition, or a term of its `and`, `or` or `!`) that two or
///   more rules test and that read nothing any action of the set writes, so every rule that
///   tests one during a call finds the same outcome.
struct ReadPlan: Sendable {
    private let slots: [ObjectKeyPath: Int]
    private let conditionSlots: [Expression: Int]

    /// A plan that caches nothing.
    static var none: ReadPlan { ReadPlan(slots: [:], conditionSlots: [:]) }

    private init(slots: [ObjectKeyPath: Int], conditionSlots: [Expression: Int]) {
        self.slots = slots
        self.conditionSlots = conditionSlots
    }

    /// Slots a call needs.
    var count: Int { slots.count + conditionSlots.count }

    /// How many conditions are cached.
    var conditionCount: Int { conditionSlots.count }

    /// The slot of `path`, when its reads are cached.
    func slot(for path: ObjectKeyPath) -> Int? { slots[path] }

    /// The slot of `condition`, when its outcome is cached.
    func slot(forCondition condition: Expression) -> Int? {
        conditionSlots.isEmpty ? nil : conditionSlots[condition]
    }

    /// The plan for `rules`.
    init(rules: [Rule]) {
        var reads: [[String]] = []
        var writes: [[String]] = []
        var conditions: [Expression: Int] = [:]
        for rule in rules {
            if let condition = rule.condition {
                Self.paths(in: condition, depth: 0, into: &reads)
                Self.conditions(in: condition, depth: 0, into: &conditions)
            }
            for action in rule.actions { Self.access(of: action, reads: &reads, writes: &writes) }
        }
        // Written paths by their first component; the empty path is the whole event.
        var writesByField: [String: [[String]]] = [:]
        for path in writes {
            guard let first = path.first else {
                self = .none
                return
            }
            writesByField[first, default: []].append(path)
        }
        // Nothing the set writes is the path, around it or inside it.
        func unchanged(_ read: [String]) -> Bool {
            guard let first = read.first else { return writes.isEmpty }
            return !(writesByField[first] ?? []).contains { read.starts(with: $0) || $0.starts(with: read) }
        }
        var keyReads: [ObjectKeyPath: Int] = [:]
        for path in reads {
            if let key = ObjectKeyPath(path) { keyReads[key, default: 0] += 1 }
        }
        let keys = keyReads.filter { key, count in count >= 2 && unchanged([key.field.name, key.key]) }.keys
        // A condition is kept only when every path it reads is known (none beyond the nesting
        // limit) and unchanged.
        let shared = conditions.filter { condition, count in
            var conditionReads: [[String]] = []
            return count >= 2 && Self.paths(in: condition, depth: 0, into: &conditionReads) && conditionReads.allSatisfy(unchanged)
        }.keys
        self.init(
            slots: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }),
            conditionSlots: Dictionary(uniqueKeysWithValues: shared.enumerated().map { ($1, keys.count + $0) }))
    }

    /// Adds the paths `action` reads to `reads` and those it may change to `writes`.
    private static func access(of action: RuleAction, reads: inout [[String]], writes: inout [[String]]) {
        switch action {
        case .drop: break
        case .sample(_, let path): if let path { reads.append(path) }
        case .set(let path, let expression):
            paths(in: expression, depth: 0, into: &reads)
            writes.append(path)
        case .copy(let source, let target):
            reads.append(source)
            writes.append(target)
        case .move(let source, let target):
            reads.append(source)
            writes += [source, target]
        case .delete(let path), .allow(let path, _): writes.append(path)
        case .toString(let path):
            reads.append(path)
            writes.append(path)
        case .remove(let path, let keys): writes += path.count == 1 ? keys.map { path + [$0] } : [path]
        case .map(let entries):
            for entry in entries {
                if let source = entry.copy ?? entry.move { reads.append(source) }
                if let moved = entry.move { writes.append(moved) }
                writes.append(entry.target)
            }
        }
    }

    /// Adds each path `expression` reads to `paths`; nesting beyond the rule language's own limit
    /// is not looked into, and then the answer is `false`.
    @discardableResult
    private static func paths(in expression: Expression, depth: Int, into paths: inout [[String]]) -> Bool {
        guard depth < 64 else { return false }
        switch expression {
        case .path(let path):
            paths.append(path)
            return true
        case .literal:
            return true
        case .list(let items), .and(let items), .or(let items), .call(_, let items):
            var complete = true
            for item in items { complete = Self.paths(in: item, depth: depth + 1, into: &paths) && complete }
            return complete
        case .not(let inner):
            return Self.paths(in: inner, depth: depth + 1, into: &paths)
        case .coalesce(let first, let second), .compare(_, let first, let second):
            let firstComplete = Self.paths(in: first, depth: depth + 1, into: &paths)
            return Self.paths(in: second, depth: depth + 1, into: &paths) && firstComplete
        }
    }

    /// Counts `condition` and each condition ``Evaluator`` compiles inside it (the terms of `and`
    /// and `or`, the operand of `!`) in `counts`; literals and `type` compared with a literal,
    /// which cost less to test than to look up, are left out.
    private static func conditions(in condition: Expression, depth: Int, into counts: inout [Expression: Int]) {
        guard depth < 64 else { return }
        switch condition {
        case .literal, .compare(_, .path(["type"]), .literal): return
        case .and(let terms), .or(let terms):
            for term in terms { conditions(in: term, depth: depth + 1, into: &counts) }
        case .not(let inner): conditions(in: inner, depth: depth + 1, into: &counts)
        default: break
        }
        counts[condition, default: 0] += 1
    }
}
