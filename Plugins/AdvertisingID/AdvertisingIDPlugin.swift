import Foundation
import MetaRouterCore

/// Keeps the advertising identifier (IDFA) the host app obtained with the user's consent
/// (the facade's `setAdvertisingId(_:)` and `clearAdvertisingId()` drive it),
/// persisted under `metarouter:advertising_id`, and places it at
/// `context.device.advertisingId` on every event.
///
/// Only values that parse as a UUID are accepted; anything else is rejected with a warning and
/// the previous value stays. `nil`, `clear()` and `reset()` remove it from memory and storage.
package final class AdvertisingIDPlugin: EventPlugin {
    /// The storage key, as the MetaRouter iOS SDK names it.
    package static let storageKey = "metarouter:advertising_id"

    /// Runs after identity and context, so the device object exists to be completed.
    package let type = PluginType.enrichment

    /// The current advertising id, if any.
    package private(set) var advertisingId: String?

    private var store: (any KeyValueStore)?
    private var logger: AnalyticsLogger?
    /// The shared context with the id written in, reused while both stay the same.
    private var stamped = ContextRewrite()
    private weak var analytics: AnalyticsClient?

    /// Creates the plugin; it loads the stored id when it joins a client.
    package init() {}

    /// The id iOS reports when the user limited or denied tracking.
    static let limitedTrackingId = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Loads the stored id (an all-zero one stored by an older version counts as none).
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        store = analytics.configuration.storage
        logger = analytics.logger
        advertisingId = store?.string(forKey: Self.storageKey).flatMap { UUID(uuidString: $0) == Self.limitedTrackingId ? nil : $0 }
    }

    /// Sets (or, with `nil`, clears) the id. Invalid values are rejected with a warning. On the
    /// executor only (`perform { $0.find(AdvertisingIDPlugin.self)?.set(id) }`); debug builds
    /// check that.
    package func set(_ newValue: String?) {
        analytics?.assertOnExecutor()
        guard let newValue else {
            clear()
            return
        }
        let trimmed = newValue.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let uuid = UUID(uuidString: trimmed) else {
            logger?.warning("sdk.advertising_id_rejected: rejected advertising id \"\(newValue)\": not a UUID")
            return
        }
        // iOS returns the all-zero id when tracking is limited or denied: that is no id.
        guard uuid != Self.limitedTrackingId else {
            logger?.debug("sdk.advertising_id_limited: advertising id is all zeros (tracking limited): treated as no id")
            clear()
            return
        }
        advertisingId = trimmed
        store?.set(trimmed, forKey: Self.storageKey)
    }

    /// Removes the id from memory and storage. On the executor only; debug builds check that.
    package func clear() {
        analytics?.assertOnExecutor()
        advertisingId = nil
        store?.set(nil, forKey: Self.storageKey)
    }

    /// Whether the event's consent denies a category whose name contains "advertising".
    static func deniesAdvertising(_ event: Event) -> Bool {
        guard let preferences = event.context["consent"]?["categoryPreferences"]?.objectValue else { return false }
        return preferences.contains { $0.key.lowercased().contains("advertising") && $0.value == .bool(false) }
    }

    /// Adds `context.device.advertisingId` when an id is set.
    /// Withheld when the event's consent (`context.consent.categoryPreferences`, stamped by
    /// the consent gate) denies a category named for advertising.
    package func execute(event: consuming Event) -> Event? {
        guard let advertisingId, !Self.deniesAdvertising(event) else { return event }
        event.context = stamped.apply(to: event.context, for: .string(advertisingId)) { context in
            var device = context["device"]?.objectValue ?? [:]
            device["advertisingId"] = .string(advertisingId)
            context["device"] = .object(device)
        }
        return event
    }

    /// Clears the id.
    package func reset() { clear() }
}
