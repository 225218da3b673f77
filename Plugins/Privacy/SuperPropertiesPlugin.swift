import Foundation
import MetaRouterCore

/// Properties registered once and added to every `track`, `screen` and `page` call's
/// properties; the call's own keys win on collision. Persisted per instance (in the client's
/// `KeyValueStore`, under a key naming the write key's storage namespace); `reset()` and
/// `forget()` clear them.
///
/// A `before` plugin, after the consent gate and ahead of PII scrubbing, so what it adds is
/// scrubbed like the call's own properties.
package final class SuperPropertiesPlugin: EventPlugin {
    /// After the consent gate, before scrubbing.
    package let type = PluginType.before
    /// The registered properties.
    package private(set) var properties: [String: JSON] = [:]
    private var store: (any KeyValueStore)?
    private var storageKey = ""

    /// A plugin that loads the stored properties when it joins a client.
    package init() {}

    /// Only for the debug-build check that mutators run on the executor.
    private weak var analytics: AnalyticsClient?

    /// The storage key for a write key.
    package static func storageKey(forWriteKey writeKey: String) -> String {
        "metarouter:super_properties:" + StorageFiles.namespace(for: writeKey)
    }

    /// Loads the stored properties.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        store = analytics.configuration.storage
        storageKey = Self.storageKey(forWriteKey: analytics.configuration.writeKey)
        guard let text = store?.string(forKey: storageKey) else { return }
        if let stored = (try? JSONParser.parse(text))?.objectValue {
            properties = stored
        } else {
            analytics.logger.warning("sdk.super_properties_unreadable: the stored super properties could not be read; starting without")
        }
    }

    /// Sets `key` to `value`, replacing what was registered under it.
    package func register(_ key: String, _ value: JSON) {
        #if DEBUG
        analytics?.assertOnExecutor()
        #endif
        register(key, value, persisting: true)
    }

    /// Sets `key` to `value` unless something is registered under it already.
    package func registerOnce(_ key: String, _ value: JSON) {
        #if DEBUG
        analytics?.assertOnExecutor()
        #endif
        registerOnce(key, value, persisting: true)
    }

    /// Sets `key` to `value`; writes the properties to storage only when `persisting` (not
    /// while analytics consent is withdrawn).
    package func register(_ key: String, _ value: JSON, persisting: Bool) {
        properties[key] = value
        if persisting { persist() }
    }

    /// ``registerOnce(_:_:)``, writing to storage only when `persisting`.
    package func registerOnce(_ key: String, _ value: JSON, persisting: Bool) {
        guard properties[key] == nil else { return }
        register(key, value, persisting: persisting)
    }

    /// Removes `key`.
    package func unregister(_ key: String) {
        #if DEBUG
        analytics?.assertOnExecutor()
        #endif
        guard properties.removeValue(forKey: key) != nil else { return }
        persist()
    }

    /// Removes every registered property; returns whether there were any.
    @discardableResult
    package func clear() -> Bool {
        let had = !properties.isEmpty || store?.string(forKey: storageKey) != nil
        properties = [:]
        store?.set(nil, forKey: storageKey)
        return had
    }

    /// A logout forgets them.
    package func reset() { clear() }

    /// Adds the registered properties.
    package func track(event: consuming Event) -> Event? { merged(event) }
    /// Adds the registered properties.
    package func screen(event: consuming Event) -> Event? { merged(event) }
    /// Adds the registered properties.
    package func page(event: consuming Event) -> Event? { merged(event) }

    private func merged(_ event: consuming Event) -> Event? {
        guard !properties.isEmpty else { return event }
        event.properties = properties.merging(event.properties ?? [:]) { _, own in own }
        return event
    }

    private func persist() {
        store?.set(JSONWriter.string(.object(properties)), forKey: storageKey)
    }
}
