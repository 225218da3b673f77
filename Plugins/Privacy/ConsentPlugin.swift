import Foundation
import MetaRouterCore

/// The consent gate: first in the timeline, so a call made while analytics consent is
/// withdrawn is dropped before any other plugin sees it — identity persists nothing for it, the
/// disk log never holds it. Changes take effect in call order (``set(_:)`` runs on the
/// executor, between the calls made before and after it). Events accepted before a withdrawal
/// were consented to when they were made and are delivered.
///
/// The state is persisted per instance (in the client's `KeyValueStore`, under a key that
/// names the write key's storage namespace), so it holds across launches; ``forget()``
/// removes it. `reset()` (a logout) keeps it: consent belongs to the device's user, and the
/// next user is asked by the app.
package final class ConsentPlugin: Plugin {
    /// First: ahead of PII scrubbing, identity and every destination.
    package let type = PluginType.before
    /// The consent in force.
    package private(set) var state: ConsentState
    /// Events dropped because analytics consent was withdrawn.
    package private(set) var droppedEvents = 0
    private let initial: ConsentState
    private var store: (any KeyValueStore)?
    private var storageKey = ""
    private var logger: AnalyticsLogger?
    /// Only for the debug-build check that `set` runs on the executor.
    private weak var analytics: AnalyticsClient?

    /// A gate starting from `initial` unless a stored state exists for the client.
    package init(initial: ConsentState = .granted) {
        self.initial = initial
        state = initial
    }

    /// The storage key for a write key.
    package static func storageKey(forWriteKey writeKey: String) -> String {
        "metarouter:consent:" + StorageFiles.namespace(for: writeKey)
    }

    /// Loads the persisted state, if any.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        logger = analytics.logger
        store = analytics.configuration.storage
        storageKey = Self.storageKey(forWriteKey: analytics.configuration.writeKey)
        if let text = store?.string(forKey: storageKey) {
            if let stored = try? JSONDecoder().decode(ConsentState.self, from: Data(text.utf8)) {
                state = stored
            } else {
                logger?.warning("sdk.consent_unreadable: the stored consent could not be read; starting from the initial consent")
            }
        }
    }

    /// Events of the errors channel: the error reports the SDK makes.
    package static let errorEventNames: Set<String> = ["Error Captured", "Application Crashed"]

    /// Drops the event without consent in its channel (errors for error reports, analytics for
    /// everything else); stamps the category preferences.
    package func execute(event: consuming Event) -> Event? {
        // Both channels granted (the common case): no need to know which one the event is in.
        if !(state.analytics && state.errors) {
            let isErrorReport = event.type == .track && Self.errorEventNames.contains(event.event ?? "")
            guard isErrorReport ? state.errors : state.analytics else {
                droppedEvents += 1
                return nil
            }
        }
        guard let consent = state.contextValue else { return event }
        event.context["consent"] = consent
        return event
    }

    /// Makes `newState` the consent in force and persists it; logs the change once.
    package func set(_ newState: ConsentState) {
        #if DEBUG
        analytics?.assertOnExecutor()
        #endif
        guard newState != state else { return }
        let before = state
        state = newState
        if let encoded = try? JSONEncoder().encode(newState) {
            store?.set(String(decoding: encoded, as: UTF8.self), forKey: storageKey)
        }
        if before.analytics != newState.analytics {
            logger?.info(
                newState.analytics
                    ? "sdk.consent_changed: analytics consent granted; calls are collected again"
                    : "sdk.consent_denied: analytics consent withdrawn; calls are dropped until it is granted (\(droppedEvents) dropped so far)")
        } else {
            logger?.info("sdk.consent_changed: consent updated")
        }
    }

    /// Removes the persisted state and returns to the initial consent; returns whether a
    /// stored state was removed.
    @discardableResult
    package func forget() -> Bool {
        let existed = store?.string(forKey: storageKey) != nil
        store?.set(nil, forKey: storageKey)
        state = initial
        return existed
    }
}

extension ConsentPlugin: PrivacyGate {
    /// Whether analytics consent is granted.
    package var collectsAnalytics: Bool { state.analytics }
}
