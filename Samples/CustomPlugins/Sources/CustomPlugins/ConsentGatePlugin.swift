import MetaRouter

/// Consent categories a user can grant.
public enum ConsentCategory: String, Sendable, Hashable, CaseIterable {
    /// Product analytics.
    case analytics
    /// Advertising and attribution.
    case advertising
}

/// Drops every event until the user grants `analytics` consent, and strips the advertising ID
/// unless `advertising` consent is granted. Consent changes travel the ordered path, so events
/// tracked before a change are judged by the consent in force when they were tracked.
public final class ConsentGatePlugin: Plugin {
    /// First, before anything else sees the event.
    public let type = PluginType.before
    private var granted: Set<ConsentCategory>

    /// A gate with `granted` categories.
    public init(granted: Set<ConsentCategory> = []) { self.granted = granted }

    /// Changes consent in order with the calls around it.
    public static func update(_ analytics: AnalyticsClient, granted: Set<ConsentCategory>) {
        analytics.perform { $0.find(ConsentGatePlugin.self)?.granted = granted }
    }

    /// Drops or trims the event.
    public func execute(event: Event) -> Event? {
        guard granted.contains(.analytics) else { return nil }
        guard !granted.contains(.advertising), case .object(var device)? = event.context["device"] else { return event }
        var event = event
        device["advertisingId"] = nil
        event.context["device"] = .object(device)
        return event
    }
}
