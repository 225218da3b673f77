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

    /// Every instance, and none after.
    mutating func removeAll() -> [Analytics] {
        defer { storage = .few([]) }
        switch storage {
        case .few(let entries): return entries.map(\.instance)
        case .many(let instances): return Array(instances.values)
        }
    }
}
