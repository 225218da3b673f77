import Foundation

extension AnalyticsClient {
    /// Records a user action.
    public func track(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        process(events.track(name, properties: properties, options: options))
    }

    /// Records a user action with typed properties (any `Encodable` that encodes as an object).
    public func track<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        process(PreparedEvent(events.track(name, encodable: properties, options: options)))
    }

    /// Sets the current user and records their traits. Later events carry `userId`.
    public func identify(_ userId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        guard acceptsIdentifier(userId, call: "identify") else { return }
        process(events.identify(userId, traits: traits, options: options))
    }

    /// Sets the current user with typed traits.
    public func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions? = nil) {
        guard acceptsIdentifier(userId, call: "identify") else { return }
        process(PreparedEvent(events.identify(userId, encodable: traits, options: options)))
    }

    /// Records a screen view; the name is sent as `name` and `properties.name`.
    public func screen(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        process(events.view(.screen, name, properties: properties, options: options))
    }

    /// Records a screen view with typed properties.
    public func screen<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        process(PreparedEvent(events.view(.screen, name, encodable: properties, options: options)))
    }

    /// Records a page view; the name is sent as `name` and `properties.name`.
    public func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        process(events.view(.page, name, properties: properties, options: options))
    }

    /// Records a page view with typed properties.
    public func page<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        process(PreparedEvent(events.view(.page, name, encodable: properties, options: options)))
    }

    /// Sets the current group and records its traits. Later events carry `groupId`.
    public func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        guard acceptsIdentifier(groupId, call: "group") else { return }
        process(events.group(groupId, traits: traits, options: options))
    }

    /// Sets the current group with typed traits.
    public func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions? = nil) {
        guard acceptsIdentifier(groupId, call: "group") else { return }
        process(PreparedEvent(events.group(groupId, encodable: traits, options: options)))
    }

    /// Links the current identity to `newUserId` and makes it the current userId. The event's
    /// `previousId` is the userId before, or the anonymousId when there was none.
    public func alias(_ newUserId: String, options: EventOptions? = nil) {
        guard acceptsIdentifier(newUserId, call: "alias") else { return }
        process(PreparedEvent(events.alias(newUserId, options: options)))
    }

    /// An empty or blank id would be carried on every later event: it is refused with a log
    /// line, and the identity stays as it was.
    private func acceptsIdentifier(_ id: String, call: String) -> Bool {
        guard id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return true }
        logger.warning("\(call) ignored: the id is empty; the current identity is kept")
        return false
    }
}
