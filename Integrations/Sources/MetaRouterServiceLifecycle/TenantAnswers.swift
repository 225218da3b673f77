import Foundation

/// A resolver's answers, bounded by count (and so by bytes: keys are at most
/// ``TenantLimits/maxKeyBytes`` long): the oldest answer is forgotten first, and a "no" expires
/// after ``TenantLimits/refusalMemorySeconds``.
struct TenantAnswers {
    private var answers: [String: (admitted: Bool, expires: ContinuousClock.Instant?)] = [:]
    private var order: [String] = []
    private var head = 0
    let capacity: Int
    let refusalMemory: Duration

    init(capacity: Int, refusalMemorySeconds: TimeInterval) {
        self.capacity = max(1, capacity)
        self.refusalMemory = .milliseconds(Int64(max(0, min(refusalMemorySeconds, 86_400)) * 1000))
    }

    /// The remembered answer for `key`, if it has not expired.
    func answer(for key: String, now: ContinuousClock.Instant) -> Bool? {
        guard let entry = answers[key] else { return nil }
        if let expires = entry.expires, expires <= now { return nil }
        return entry.admitted
    }

    /// Remembers `admitted` for `key`, forgetting the oldest answer when full.
    mutating func remember(_ admitted: Bool, for key: String, now: ContinuousClock.Instant) {
        if answers.updateValue((admitted, admitted ? nil : now + refusalMemory), forKey: key) == nil { order.append(key) }
        while answers.count > capacity, head < order.count {
            answers[order[head]] = nil
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// Answers held now.
    var count: Int { answers.count }
}
