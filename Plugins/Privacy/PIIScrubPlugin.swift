import Foundation
import MetaRouterCore

/// Scrubs personal data from events before any other plugin sees them — before identity,
/// context, the rules and the destinations, so nothing it removes is queued, written to disk
/// or sent. It scrubs `track`, `screen` and `page` properties, and `identify` / `group` traits
/// only when ``PIIScrubbingOptions/scrubsTraits`` is set. The SDK's own context is left alone.
///
/// Off until ``isEnabled`` is set (`InitOptions.scrubPII`, `setScrubPII(_:)`), for the
/// MetaRouter SDK's wire output. Whether on or off, with debug logging on it names, once per
/// key, property keys that look sensitive (email, password, token, secret, card, phone).
public final class PIIScrubPlugin: EventPlugin {
    /// Runs first.
    public let type = PluginType.before
    /// Whether events are scrubbed. Change it on the executor (`setScrubPII(_:)` does), so it
    /// takes effect in call order.
    public var isEnabled: Bool
    private let scrubber: PIIScrubber
    private let scrubsTraits: Bool
    private weak var analytics: AnalyticsClient?
    private var scrubbedValues = 0
    private var reports = ReportThrottle(interval: 10)
    private var namedKeys: Set<String> = []

    /// Words in a key that make it look sensitive.
    static let sensitiveWords = ["email", "password", "token", "secret", "card", "phone"]
    /// Keys named at most, so a stream of distinct keys cannot grow memory.
    static let maximumNamedKeys = 256

    /// A plugin scrubbing with `options`, on from the start when `enabled`.
    public init(enabled: Bool = true, options: PIIScrubbingOptions = PIIScrubbingOptions()) {
        isEnabled = enabled
        scrubber = PIIScrubber(options: options)
        scrubsTraits = options.scrubsTraits
    }

    /// Values scrubbed since the plugin started.
    public var scrubbedCount: Int { scrubbedValues }

    /// Reports patterns that do not compile.
    public func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        for pattern in scrubber.invalidPatterns {
            analytics.logger.error("sdk.pii_pattern_invalid: \"\(pattern)\" is not a valid regular expression; it is ignored")
        }
    }

    /// Scrubs the properties.
    public func track(event: Event) -> Event? { scrubProperties(event) }
    /// Scrubs the properties.
    public func screen(event: Event) -> Event? { scrubProperties(event) }
    /// Scrubs the properties.
    public func page(event: Event) -> Event? { scrubProperties(event) }
    /// Scrubs the traits when asked to.
    public func identify(event: Event) -> Event? { scrubTraits(event) }
    /// Scrubs the traits when asked to.
    public func group(event: Event) -> Event? { scrubTraits(event) }

    private func scrubProperties(_ event: Event) -> Event? {
        guard let properties = event.properties else { return event }
        nameSensitiveKeys(properties)
        guard isEnabled else { return event }
        let (scrubbed, count) = scrubber.scrub(properties)
        guard count > 0 else { return event }
        var changed = event
        changed.properties = scrubbed
        note(count, in: event)
        return changed
    }

    private func scrubTraits(_ event: Event) -> Event? {
        guard isEnabled, scrubsTraits, let traits = event.traits else { return event }
        let (scrubbed, count) = scrubber.scrub(traits)
        guard count > 0 else { return event }
        var changed = event
        changed.traits = scrubbed
        note(count, in: event)
        return changed
    }

    private func note(_ count: Int, in event: Event) {
        scrubbedValues += count
        guard let analytics, analytics.logger.minimumLevel <= .debug else { return }
        let now = analytics.configuration.clock.now().timeIntervalSinceReferenceDate
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
