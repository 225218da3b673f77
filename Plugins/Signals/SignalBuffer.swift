import MetaRouterCore

/// The last signals, in a ring kept in memory only (never on disk). Confined to the executor.
public final class SignalBuffer {
    /// Signals kept at most.
    package let capacity: Int
    private var ring: [Signal] = []
    private var next = 0

    /// A ring of `capacity` signals (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds `signal`, dropping the oldest when full.
    func append(_ signal: Signal) {
        if ring.count < capacity {
            ring.append(signal)
        } else {
            ring[next] = signal
        }
        next = (next + 1) % capacity
    }

    /// Signals kept now.
    package var count: Int { ring.count }

    /// The signals, oldest first.
    package var signals: [Signal] {
        ring.count < capacity ? ring : Array(ring[next...] + ring[..<next])
    }

    /// The most recent signal of `type` older than `signal` (by index) for which `predicate`
    /// holds: the seed's `signals.find(signal, type, predicate)`.
    ///
    /// - Parameters:
    ///   - signal: The signal to look back from.
    ///   - type: The type of signal wanted.
    ///   - predicate: What the signal must satisfy.
    /// - Returns: The newest such signal before `signal`, if any.
    public func find(before signal: Signal? = nil, type: SignalType, where predicate: (Signal) -> Bool = { _ in true }) -> Signal? {
        var offset = 1
        while offset <= ring.count {
            let candidate = ring[(next - offset + ring.count) % ring.count]
            offset += 1
            if let signal, candidate.index >= signal.index { continue }
            if candidate.type == type, predicate(candidate) { return candidate }
        }
        return nil
    }

    /// Empties the buffer; returns how many signals it held.
    @discardableResult
    func clear() -> Int {
        defer {
            ring.removeAll(keepingCapacity: true)
            next = 0
        }
        return ring.count
    }
}
