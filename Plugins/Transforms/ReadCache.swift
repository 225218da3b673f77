import MetaRouterCore

/// Values one rule-set call reads more than once and none of its rules can change — one key of
/// an object field, such as `properties.price` tested by several rules — read once per call
/// and reused. (Each read of a key hashes it; a 20-rule set read `properties.price` eight
/// times.) Which keys: ``ReadPlan``, when the set is compiled. Where the values are kept:
/// memory the call owns, so calls on different threads share nothing.
struct ReadCache {
    private let slots: UnsafeMutablePointer<JSON??>?

    /// A cache that keeps nothing: every read goes to the event.
    static var none: ReadCache { ReadCache(slots: nil) }

    /// The value in `slot`, read with `read` the first time the call asks for it.
    @inline(__always)
    func value(in slot: Int, _ read: () -> JSON?) -> JSON? {
        guard let slots else { return read() }
        if case .some(let cached) = slots[slot] { return cached }
        let value = read()
        slots[slot] = .some(value)
        return value
    }

    /// Runs `body` with a cache of `count` empty slots, released when it returns.
    static func with<Result>(slots count: Int, _ body: (ReadCache) -> Result) -> Result {
        guard count > 0 else { return body(.none) }
        return withUnsafeTemporaryAllocation(of: JSON??.self, capacity: count) { buffer in
            guard let base = buffer.baseAddress else { return body(.none) }
            base.initialize(repeating: .none, count: count)
            defer { base.deinitialize(count: count) }
            return body(ReadCache(slots: base))
        }
    }
}

/// Which reads of a rule set ``ReadCache`` keeps: the keys of object fields that its
/// conditions and actions read two times or more and that no action of the set writes (nor
/// the whole object, nor the whole event). Worked out once, when the set is compiled.
struct ReadPlan: Sendable {
    private let slots: [ObjectKeyPath: Int]

    /// A plan that caches nothing.
    static var none: ReadPlan { ReadPlan(slots: [:]) }

    private init(slots: [ObjectKeyPath: Int]) { self.slots = slots }

    /// Slots a call needs.
    var count: Int { slots.count }

    /// The slot of `path`, when its reads are cached.
    func slot(for path: ObjectKeyPath) -> Int? { slots[path] }

    /// The plan for `rules`.
    init(rules: [Rule]) {
        var reads: [ObjectKeyPath: Int] = [:]
        var written = Set<ObjectKeyPath>()
        var wholeFields = Set<EventObjectField>()
        var everything = false
        func read(_ path: [String]) {
            if let key = ObjectKeyPath(path) { reads[key, default: 0] += 1 }
        }
        func write(_ path: [String]) {
            guard let first = path.first else { return everything = true }
            guard let field = EventObjectField(first) else { return }
            if path.count == 1 { wholeFields.insert(field) } else { written.insert(ObjectKeyPath(field, path[1])) }
        }
        for rule in rules {
            if let condition = rule.condition { Self.paths(in: condition, depth: 0, read) }
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
            self.init(slots: [:])
            return
        }
        let cached = reads.filter { key, count in count >= 2 && !written.contains(key) && !wholeFields.contains(key.field) }
        self.init(slots: Dictionary(uniqueKeysWithValues: cached.keys.enumerated().map { ($1, $0) }))
    }

    /// Calls `visit` with each path `expression` reads; nesting beyond the rule language's own
    /// limit is not looked into (its reads are then simply not cached).
    private static func paths(in expression: Expression, depth: Int, _ visit: ([String]) -> Void) {
        guard depth < 64 else { return }
        switch expression {
        case .path(let path): visit(path)
        case .literal: break
        case .list(let items), .and(let items), .or(let items), .call(_, let items):
            for item in items { paths(in: item, depth: depth + 1, visit) }
        case .not(let inner): paths(in: inner, depth: depth + 1, visit)
        case .coalesce(let first, let second), .compare(_, let first, let second):
            paths(in: first, depth: depth + 1, visit)
            paths(in: second, depth: depth + 1, visit)
        }
    }
}
