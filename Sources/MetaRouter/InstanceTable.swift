/// The instances of a process by write key: a list while there are few (an app's one or two),
/// a dictionary once there are more (a server's tenants). The first `[String: …]` dictionary a
/// process makes costs it a runtime lookup of `String: Hashable` across every loaded image,
/// which an app's first `initialize` need not pay for one entry (`Benchmarks/README.md`,
/// "Start-up").
struct InstanceTable {
    /// Up to this many entries are kept in a list, searched in order.
    private static let listed = 8
    private struct Entry {
        let key: String
        let instance: Analytics
    }
    private enum Storage {
        case few([Entry])
        case many([String: Analytics])
    }
    private var storage = Storage.few([])

    /// The instance for `key`; setting `nil` removes it.
    subscript(key: String) -> Analytics? {
        get {
            switch storage {
            case .few(let entries): return entries.first { $0.key == key }?.instance
            case .many(let instances): return instances[key]
            }
        }
        set {
            switch storage {
            case .few(var entries):
                entries.removeAll { $0.key == key }
                if let newValue { entries.append(Entry(key: key, instance: newValue)) }
                if entries.count <= Self.listed {
                    storage = .few(entries)
                } else {
                    storage = .many(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.instance) }))
                }
            case .many(var instances):
                storage = .few([])  // no second reference while the dictionary changes
                instances[key] = newValue
                storage = .many(instances)
            }
        }
    }

    /// Every entry, and none after.
    private mutating func removeAll() -> [Entry] {
        defer { storage = .few([]) }
        switch storage {
        case .few(let entries): return entries
        case .many(let instances): return instances.map(Entry.init)
        }
    }

    // MARK: Instances shutting down

    /// An instance shutting down: a new instance for its key waits behind `gate`.
    private struct Closing {
        let key: String
        let engine: AnalyticsClient
        let gate: PredecessorGate
    }
    private var closing: [Closing] = []

    /// The gate a new instance for `key` must wait behind: the one of the instance for `key`
    /// that began shutting down last, while it has not finished.
    func predecessorGate(for key: String) -> PredecessorGate? {
        closing.last { $0.key == key }?.gate
    }

    /// Takes the instance whose engine is `engine` out of the table, listed as shutting down
    /// until ``finishClosing(_:)``. Returns `false` when the table does not hold it (an inert
    /// instance, or one shutting down already).
    mutating func beginClosing(key: String, engine: AnalyticsClient) -> Bool {
        guard self[key]?.engine === engine else { return false }
        self[key] = nil
        closing.append(Closing(key: key, engine: engine, gate: PredecessorGate()))
        return true
    }

    /// Every instance, taken out and listed as shutting down.
    mutating func beginClosingAll() -> [Analytics] {
        let all = removeAll()
        closing += all.map { Closing(key: $0.key, engine: $0.instance.engine, gate: PredecessorGate()) }
        return all.map(\.instance)
    }

    /// Ends the listing of `engine` as shutting down; returns the gate to open (outside the
    /// lock: opening starts the instance waiting behind it).
    mutating func finishClosing(_ engine: AnalyticsClient) -> PredecessorGate? {
        guard let index = closing.firstIndex(where: { $0.engine === engine }) else { return nil }
        return closing.remove(at: index).gate
    }
}
