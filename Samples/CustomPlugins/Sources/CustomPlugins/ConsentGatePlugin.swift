import MetaRouter

/// Consent categories a user can grant.
public enum ConsentCategory: String, Sendable, Hashable, CaseIterable {
    /// Product analytics.
    case analytics
    /// Advertising and attribution.
    case advertising
}

/// Drops every event until the user grants `analytics` consent. It sits in the `before` stage,
/// ahead of the built-in identity plugin (`enrichment`), so an event it drops never changes the
/// stored identity. Consent changes travel the ordered path, so events tracked before a change
/// are judged by the consent in force when they were tracked.
///
/// The advertising ID is added later, in `enrichment`, so the part of consent that removes it
/// is a second plugin, ``advertisingFilter``, that runs after the advertising-ID plugin: add
/// both (`plugins`).
public final class ConsentGatePlugin: Plugin {
    /// Before anything else sees the event.
    public let type = PluginType.before
    fileprivate var granted: Set<ConsentCategory>
    /// Strips the advertising ID unless `advertising` is granted; reads this gate's consent.
    public private(set) lazy var advertisingFilter = AdvertisingConsentFilter(gate: self)

    /// A gate with `granted` categories.
    public init(granted: Set<ConsentCategory> = []) { self.granted = granted }

    /// The gate and its advertising filter, in the order to add them (after the built-ins).
    public var plugins: [any Plugin] { [self, advertisingFilter] }

    /// Changes consent in order with the calls around it.
    ///
    /// - Parameters:
    ///   - analytics: The instance the gate was added to.
    ///   - granted: The categories granted from now on.
    public static func update(_ analytics: Analytics, granted: Set<ConsentCategory>) {
        analytics.perform { $0.find(ConsentGatePlugin.self)?.granted = granted }
    }

    /// Drops the event unless analytics consent is granted.
    public func execute(event: Event) -> Event? {
        granted.contains(.analytics) ? event : nil
    }
}

/// The advertising half of ``ConsentGatePlugin``: in `enrichment`, added after the built-in
/// advertising-ID plugin, it removes `context.device.advertisingId` unless `advertising` is
/// granted.
public final class AdvertisingConsentFilter: Plugin {
    /// After the advertising-ID plugin (the built-ins are added first).
    public let type = PluginType.enrichment
    private unowned let gate: ConsentGatePlugin

    fileprivate init(gate: ConsentGatePlugin) { self.gate = gate }

    /// Removes the advertising ID without advertising consent.
    public func execute(event: Event) -> Event? {
        guard !gate.granted.contains(.advertising), case .object(var device)? = event.context["device"] else { return event }
        var event = event
        device["advertisingId"] = nil
        event.context["device"] = .object(device)
        return event
    }
}
