import Foundation
import MetaRouterCore

/// Scrubs personal data from events before any other plugin sees them — before identity,
/// context, the rules and the destinations, so nothing it removes is queued, written to disk
/// or sent. It scrubs `track`, `screen` and `page` properties, the context a call passes
/// (`EventOptions.context`, every type), and `identify` / `group` traits only when
/// ``PIIScrubbingOptions/scrubsTraits`` is set. The SDK's own context is added after it runs,
/// and is left alone.
///
/// Scrubs while ``isEnabled``. Clients made by `MetaRouter.Analytics` add it only when
/// scrubbing is asked for (`InitOptions.scrubPII`, `setScrubPII(_:)`) or in debug mode, so
/// the default wire output stays the MetaRouter SDK's. Whether on or off, with debug logging on it names, once per
/// key, property keys that look sensitive (email, password, token, secret, card, phone).
package final class PIIScrubPlugin: EventPlugin {
    /// Runs first.
    package let type = PluginType.before
    /// Whether events are scrubbed. Change it on the executor (`setScrubPII(_:)` does), so it
    /// takes effect in call order.
    package var isEnabled: Bool
    let scrubber: PIIScrubber
    private let scrubsTraits: Bool
    private let scrubsNamesAndIds: Bool
    private weak var analytics: AnalyticsClient?
    private var reports = ReportThrottle(interval: 10)
    private var namedKeys: Set<String> = []

    /// Words in a key that make it look sensitive.
    static let sensitiveWords = ["email", "password", "token", "secret", "card", "phone"]
    /// Keys named at most, so a stream of distinct keys cannot grow memory.
    static let maximumNamedKeys = 256

    /// A plugin scrubbing with `options`, on from the start when `enabled`.
    package init(enabled: Bool = true, options: PIIScrubbingOptions = PIIScrubbingOptions()) {
        isEnabled = enabled
        scrubber = PIIScrubber(options: options)
        scrubsTraits = options.scrubsTraits
        scrubsNamesAndIds = options.scrubsNamesAndIds
    }

    /// Values scrubbed since the plugin started.
    package private(set) var scrubbedCount = 0

    /// Reports patterns that do not compile.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        for pattern in scrubber.invalidPatterns {
            analytics.logger.error("sdk.pii_pattern_invalid: \"\(pattern)\" is not a valid regular expression; it is ignored")
        }
    }

    /// Scrubs names and ids first when ``PIIScrubbingOptions/scrubsNamesAndIds`` is set, the
    /// call's context, then what the event's type calls for.
    package func execute(event: consuming Event) -> Event? {
        var named = isEnabled && scrubsNamesAndIds ? namesAndIds(of: event) : event
        if isEnabled, !named.context.isEmpty {
            let (scrubbed, count) = scrubber.scrub(named.context)
            if count > 0 {
                named.context = scrubbed
                note(count)
            }
        }
        switch named.type {
        case .track: return track(event: named)
        case .identify: return identify(event: named)
        case .screen: return screen(event: named)
        case .page: return page(event: named)
        case .group: return group(event: named)
        case .alias: return alias(event: named)
        }
    }

    /// Scrubs the properties.
    package func track(event: Event) -> Event? { properties(of: event) }
    /// Scrubs the properties.
    package func screen(event: Event) -> Event? { properties(of: event) }
    /// Scrubs the properties.
    package func page(event: Event) -> Event? { properties(of: event) }
    /// Scrubs the traits when asked to.
    package func identify(event: Event) -> Event? { scrubsTraits ? scrub(event, \.traits) : event }
    /// Scrubs the traits when asked to.
    package func group(event: Event) -> Event? { scrubsTraits ? scrub(event, \.traits) : event }

    private func namesAndIds(of event: Event) -> Event {
        let fields: [WritableKeyPath<Event, String?>] = [\.event, \.name, \.userId, \.groupId, \.previousId, \.anonymousId]
        var changed = event
        var count = 0
        for field in fields {
            guard let text = event[keyPath: field], let scrubbed = scrubber.scrubString(text) else { continue }
            changed[keyPath: field] = scrubbed
            count += 1
        }
        if count > 0 { note(count) }
        return changed
    }

    private func properties(of event: Event) -> Event? {
        if let properties = event.properties { nameSensitiveKeys(properties) }
        return scrub(event, \.properties)
    }

    private func scrub(_ event: Event, _ field: WritableKeyPath<Event, [String: JSON]?>) -> Event? {
        guard isEnabled, let values = event[keyPath: field] else { return event }
        let (scrubbed, count) = scrubber.scrub(values)
        guard count > 0 else { return event }
        var changed = event
        changed[keyPath: field] = scrubbed
        note(count)
        return changed
    }

    func note(_ count: Int) {
        scrubbedCount += count
        guard let analytics, analytics.logger.minimumLevel <= .debug else { return }
        let now = analytics.configuration.clock.uptime()
        if let total = reports.add(count, at: now) {
            analytics.logger.debug("sdk.pii_scrubbed: \(total) value(s) scrubbed since the last report")
        }
    }

    private func nameSensitiveKeys(_ properties: [String: JSON]) {
        guard let analytics, analytics.logger.minimumLevel <= .debug, namedKeys.count < Self.maximumNamedKeys else { return }
        for key in properties.keys where !namedKeys.contains(key) {
            let lowered = key.lowercased()
            guard Self.sensitiveWords.contains(where: { lowered.contains($0) }) else { continue }
            namedKeys.insert(key)
            analytics.logger.debug(
                "sdk.pii_sensitive_key: property \"\(key)\" looks sensitive; scrub it (setScrubPII, redactedKeys) or do not send it")
        }
    }
}

extension PIIScrubPlugin: PrivacyScrubbing {
    /// `values` scrubbed while scrubbing is on (counted like an event's).
    package func scrubbedForExport(_ values: [String: JSON]) -> [String: JSON] {
        guard isEnabled else { return values }
        let (scrubbed, count) = scrubber.scrub(values)
        if count > 0 { note(count) }
        return scrubbed
    }

    /// `text` scrubbed while scrubbing is on.
    package func scrubbedForExport(_ text: String) -> String {
        guard isEnabled, let scrubbed = scrubber.scrubString(text) else { return text }
        note(1)
        return scrubbed
    }
}
