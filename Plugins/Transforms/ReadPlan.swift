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
        var reads: [ObjectKeyPath: Int] = [:]
        var written = Set<ObjectKeyPath>()
        var writtenPaths: [[String]] = []
        var wholeFields = Set<EventObjectField>()
        var everything = false
        var conditions: [Expression: Int] = [:]
        func read(_ path: [String]) {
            if let key = ObjectKeyPath(path) { reads[key, default: 0] += 1 }
        }
        func write(_ path: [String]) {
            writtenPaths.append(path)
            guard let first = path.first else { return everything = true }
            guard let field = EventObjectField(first) else { return }
            if path.count == 1 { wholeFields.insert(field) } else { written.insert(ObjectKeyPath(field, path[1])) }
        }
        for rule in rules {
            if let condition = rule.condition {
                Self.paths(in: condition, depth: 0, read)
                Self.conditions(in: condition, depth: 0) { conditions[$0, default: 0] += 1 }
            }
            for action in rule.actions {
                switch action {
                case .drop: break
                case .sample(_, let path): path.map(read)
                case .set(let path, let expression): Self.paths(in: expression, depth: 0, read); write(path)
                case .copy(let source, let target): read(source); write(target)
                case .move(let source, let target): read(source); write(source); write(target)
                case .delete(let path): write(path)
                case .toString(let path): read(path); write(path)
                case .allow(let path, _): write(path)
                case .remove(let path, let keys):
                    if path.count == 1 { keys.forEach { write(path + [$0]) } } else { write(path) }
                case .map(let entries):
                    for entry in entries {
                        (entry.copy ?? entry.move).map(read)
                        entry.move.map(write)
                        write(entry.target)
                    }
                }
            }
        }
        guard !everything else {
            self.init(slots: [:], conditionSlots: [:])
            return
        }
        let cached = reads.filter { key, count in count >= 2 && !written.contains(key) && !wholeFields.contains(key.field) }
        let keySlots = Dictionary(uniqueKeysWithValues: cached.keys.enumerated().map { ($1, $0) })
        // A condition is kept only when every path it reads is known (none beyond the nesting
        // limit) and none of them overlaps a written one: the same path, one inside the other.
        let unchanging = conditions.filter { condition, count in
            guard count >= 2 else { return false }
            var conditionReads: [[String]] = []
            guard Self.paths(in: condition, depth: 0, { conditionReads.append($0) }) else { return false }
            return !conditionReads.contains { read in writtenPaths.contains { read.starts(with: $0) || $0.starts(with: read) } }
        }
        let conditionSlots = Dictionary(uniqueKeysWithValues: unchanging.keys.enumerated().map { ($1, keySlots.count + $0) })
        self.init(slots: keySlots, conditionSlots: conditionSlots)
    }

    /// Calls `visit` with each path `expression` reads; nesting beyond the rule language's own
    /// limit is not looked into, and then the answer is `false`.
    @discardableResult
    private static func paths(in expression: Expression, depth: Int, _ visit: ([String]) -> Void) -> Bool {
        guard depth < 64 else { return false }
        switch expression {
        case .path(let path):
            visit(path)
            return true
        case .literal:
            return true
        case .list(let items), .and(let items), .or(let items), .call(_, let items):
            var complete = true
            for item in items { complete = paths(in: item, depth: depth + 1, visit) && complete }
            return complete
        case .not(let inner):
            return paths(in: inner, depth: depth + 1, visit)
        case .coalesce(let first, let second), .compare(_, let first, let second):
            let firstComplete = paths(in: first, depth: depth + 1, visit)
            return paths(in: second, depth: depth + 1, visit) && firstComplete
        }
    }

    /// Calls `visit` with `condition` and each condition ``Evaluator`` compiles inside it (the
    /// terms of `and` and `or`, the operand of `!`); literals and `type` compared with a literal,
    /// which cost less to test than to look up, are left out.
    private static func conditions(in condition: Expression, depth: Int, _ visit: (Expression) -> Void) {
        guard depth < 64 else { return }
        switch condition {
        case .literal, .compare(_, .path(["type"]), .literal): return
        case .and(let terms), .or(let terms): terms.forEach { conditions(in: $0, depth: depth + 1, visit) }
        case .not(let inner): conditions(in: inner, depth: depth + 1, visit)
        default: break
        }
        visit(condition)
    }
}
