import Foundation
import MetaRouterCore

/// Fills `context` — app, device, os, library, locale, timezone (and screen on Apple) — on
/// every event. The context is computed once when the plugin joins a client, not per event;
/// context given per call is merged over it (per-call values win, objects merge key by key).
package final class ContextPlugin: Plugin {
    /// Runs after identity, before user enrichment.
    package let type = PluginType.enrichment

    /// The context added to every event.
    package private(set) var baseContext: [String: JSON] = [:]

    private let overrides: [String: JSON]
    private let screenReader: (@MainActor @Sendable () -> ScreenSize?)?
    /// The screen read started when the plugin joined a client (none where there is no screen).
    package private(set) var screenRead: Task<Void, Never>?
    /// The last context given per call and the context it made: servers pass the same one on
    /// call after call (an address, a deployment), and handing on the same dictionary spares
    /// a merge per event and lets the encoder see at once that it wrote this context before.
    private var lastMerge = ContextRewrite()

    /// Creates the plugin. `extra` is merged into the computed context (e.g. a deployment name).
    ///
    /// - Parameter extra: Keys merged into every event's `context` (the event's own keys win).
    package init(extra: [String: JSON] = [:]) {
        overrides = extra
        screenReader = ScreenReading.platformReader
    }

    /// A plugin that reads the screen with `screenReader` (the tests' stand-in for a platform).
    package init(extra: [String: JSON] = [:], screenReader: (@MainActor @Sendable () -> ScreenSize?)?) {
        overrides = extra
        self.screenReader = screenReader
    }

    /// Computes the context once. Where there is a screen (Apple platforms) it is read on the
    /// main actor, four times a second for up to 5 seconds until a window scene has connected,
    /// and joins the context when that read comes back (events before it carry no `screen`).
    ///
    /// - Parameter analytics: The client the plugin joined.
    package func configure(analytics: AnalyticsClient) {
        baseContext = ContextMerge.merge(PlatformContext.collect(application: analytics.configuration.application), overrides)
        guard let screenReader else { return }
        let handle = ExecutorHandle(self, on: analytics)
        screenRead = ScreenReading.poll(attempts: 20, intervalNanoseconds: 250_000_000, read: screenReader) { screen in
            handle.perform { plugin, _ in plugin.add(screen: screen.json) }
        }
    }

    private func add(screen: [String: JSON]) {
        baseContext = ContextMerge.merge(baseContext, ["screen": .object(screen)])
        baseContext = ContextMerge.merge(baseContext, overrides)
        lastMerge = ContextRewrite()
    }

    /// Sets the base context, merging in what the event already carries.
    ///
    /// - Parameter event: The event to enrich.
    /// - Returns: The event with its context filled in.
    package func execute(event: consuming Event) -> Event? {
        if event.context.isEmpty {
            event.context = baseContext
        } else {
            event.context = lastMerge.apply(to: event.context, for: .null) { $0 = ContextMerge.merge(baseContext, $0) }
        }
        return event
    }
}

/// Deep merge of context objects.
package enum ContextMerge {
    /// `base` with `overlay` on top: nested objects merge key by key, anything else is replaced.
    package static func merge(_ base: [String: JSON], _ overlay: [String: JSON]) -> [String: JSON] {
        var result = base
        for (key, value) in overlay {
            if case .object(let overlayObject) = value, case .object(let baseObject)? = result[key] {
                result[key] = .object(merge(baseObject, overlayObject))
            } else {
                result[key] = value
            }
        }
        return result
    }
}
