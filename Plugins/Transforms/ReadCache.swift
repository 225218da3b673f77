import MetaRouterCore

/// Values one rule-set call reads more than once and none of its rules can change — one key of
/// an object field, such as `properties.price` tested by several rules, or a whole condition
/// several rules share, such as `match(event, "Product *")` — worked out once per call and
/// reused. (Each read of a key hashes it; a 20-rule set read `properties.price` eight times.)
/// Which ones: ``ReadPlan``, when the set is compiled. Where they are kept: memory the call
/// owns, so calls on different threads share nothing.
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

    /// The outcome of the condition in `slot`, found with `evaluate` the first time the call
    /// asks for it.
    @inline(__always)
    func truth(in slot: Int, _ evaluate: () -> Bool) -> Bool {
        guard let slots else { return evaluate() }
        if case .some(.some(.bool(let known))) = slots[slot] { return known }
        let outcome = evaluate()
        slots[slot] = .some(.bool(outcome))
        return outcome
    }

    /// Runs `body` with a cache of `count` empty slots, released when it returns.
    static func with<Result>(slots count: Int, _ body: (ReadCache) -> Result) -> Result {
        guard count > 0 else { return body(.none) }
        return withUnsafeTemporaryAllocation(of: JSON??.self, capacity: count) { buffer in
            guard let base = buffer.baseAddress else { return body(.none) }
            base.initialize(repeating: .none, count: count)
            // Each slot moved out and dropped: `deinitialize(count:)` destroys through the
            // runtime's generic array routine, which costs more than the reads it saved.
            defer { for index in 0..<count { _ = (base + index).move() } }
            return body(ReadCache(slots: base))
        }
    }
}
