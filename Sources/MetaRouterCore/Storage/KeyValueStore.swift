import Foundation

/// Small persisted values (identity, lifecycle version). Implementations are thread-safe.
public protocol KeyValueStore: Sendable {
    /// The stored string, or `nil`.
    ///
    /// - Parameter key: The key.
    /// - Returns: The stored string, if any.
    func string(forKey key: String) -> String?
    /// Stores `value`, or removes the key when `value` is `nil`.
    ///
    /// - Parameters:
    ///   - value: The string to store; `nil` removes the key.
    ///   - key: The key.
    func set(_ value: String?, forKey key: String)
}

/// A store that lives in memory only: for tests, and for servers that keep no identity.
package final class InMemoryKeyValueStore: KeyValueStore {
    private let values: Locked<[String: String]>

    /// A store holding `initial`.
    ///
    /// - Parameter initial: What the store holds to begin with.
    package init(_ initial: [String: String] = [:]) { values = Locked(initial) }

    /// The stored string, or `nil`.
    ///
    /// - Parameter key: The key.
    /// - Returns: The stored string, if any.
    package func string(forKey key: String) -> String? { values.withLock { $0[key] } }

    /// Stores or removes `value`.
    ///
    /// - Parameters:
    ///   - value: The string to store; `nil` removes the key.
    ///   - key: The key.
    package func set(_ value: String?, forKey key: String) { values.withLock { $0[key] = value } }

    /// Everything stored, for assertions.
    package var snapshot: [String: String] { values.current }
}

/// `UserDefaults`, the store on Apple platforms (the seed SDK's keys live there).
package final class UserDefaultsKeyValueStore: KeyValueStore, @unchecked Sendable {  // UserDefaults is documented thread-safe
    private let defaults: UserDefaults

    /// Wraps `defaults` (`.standard` unless told otherwise).
    package init(_ defaults: UserDefaults = .standard) { self.defaults = defaults }

    /// The stored string, or `nil`.
    package func string(forKey key: String) -> String? { defaults.string(forKey: key) }

    /// Stores or removes `value`.
    package func set(_ value: String?, forKey key: String) {
        if let value { defaults.set(value, forKey: key) } else { defaults.removeObject(forKey: key) }
    }
}
