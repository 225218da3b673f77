import Foundation
import MetaRouterCore

/// Keeps who the user is — anonymousId, userId, groupId, traits — persisted in the client's
/// `KeyValueStore`, and fills them into every event that does not carry its own.
///
/// - `identify` makes its userId current and merges its traits into the stored ones.
/// - `group` makes its groupId current.
/// - `alias` sends `previousId` (the userId before, or the anonymousId) and makes the new
///   userId current.
/// - A call that carries its own `anonymousId` (a server acting for one request) is
///   request-scoped: it fills nothing in and changes no stored identity.
/// - `reset()` clears everything and generates a new anonymousId.
///
/// In ``IdentityMode/perCall`` (servers) it keeps no identity at all: see there.
package final class IdentityPlugin: EventPlugin {
    /// Enrichment, added first by default: every later enrichment, destination and `after`
    /// plugin sees the identity, while `before` plugins (consent and validation gates) run
    /// ahead of it, so an event they drop never changes the stored identity.
    package let type = PluginType.enrichment
    /// Whose identity events carry.
    package let mode: IdentityMode
    /// Events rejected in ``IdentityMode/perCall`` because they carried neither a `userId`
    /// nor an `anonymousId`.
    package private(set) var rejectedWithoutIdentity = 0

    /// The device's anonymous id: a lowercase UUID, never empty once configured.
    package private(set) var anonymousId = ""
    /// The current user, if identified.
    package private(set) var userId: String?
    /// The current group, if grouped.
    package private(set) var groupId: String?
    /// The merged traits of identify calls.
    package private(set) var traits: [String: JSON] = [:]

    private var store: (any KeyValueStore)?
    private var logger: AnalyticsLogger?
    private var problems: InputProblemReporter?

    /// Creates the plugin; in `.device` mode it loads the stored identity when it joins a client.
    ///
    /// - Parameter mode: Whether identity is the device's (persisted) or given per call.
    package init(mode: IdentityMode = .device) {
        self.mode = mode
    }

    /// Loads the stored identity, generating an anonymousId on first use (`.device` mode).
    ///
    /// - Parameter analytics: The client the plugin joined; identity is loaded from its storage.
    package func configure(analytics: AnalyticsClient) {
        logger = analytics.logger
        problems = analytics.inputProblems
        guard mode == .device else { return }
        let store = analytics.configuration.storage
        self.store = store
        userId = store.string(forKey: IdentityKeys.userId)
        groupId = store.string(forKey: IdentityKeys.groupId)
        traits = store.string(forKey: IdentityKeys.traits).flatMap { try? JSONParser.parse($0) }?.objectValue ?? [:]
        if let stored = store.string(forKey: IdentityKeys.anonymousId), !stored.isEmpty {
            anonymousId = stored
        } else {
            regenerateAnonymousId()
        }
    }

    /// Updates identity for identify / group / alias, then fills in what the event lacks.
    ///
    /// - Parameter event: The event.
    /// - Returns: The event with its identity set, or `nil` when it has none (per-call mode).
    package func execute(event: consuming Event) -> Event? {
        if mode == .perCall { return requireOwnIdentity(event) }
        guard event.anonymousId == nil else { return event }
        switch event.type {
        case .identify:
            if let newUserId = event.userId { setUserId(newUserId) }
            if let newTraits = event.traits, !newTraits.isEmpty {
                traits.merge(newTraits) { _, new in new }
                store?.set(JSONWriter.string(.object(traits)), forKey: IdentityKeys.traits)
            }
        case .group:
            if let newGroupId = event.groupId {
                groupId = newGroupId
                store?.set(newGroupId, forKey: IdentityKeys.groupId)
            }
        case .alias:
            event.previousId = event.previousId ?? userId ?? anonymousId
            if let newUserId = event.userId { setUserId(newUserId) }
        case .track, .screen, .page:
            break
        }
        event.anonymousId = anonymousId
        event.userId = event.userId ?? userId
        event.groupId = event.groupId ?? groupId
        return event
    }

    /// Forgets the user and group, and starts a new anonymous identity (`.device` mode).
    package func reset() {
        guard mode == .device else { return }
        userId = nil
        groupId = nil
        traits = [:]
        store?.set(nil, forKey: IdentityKeys.userId)
        store?.set(nil, forKey: IdentityKeys.groupId)
        store?.set(nil, forKey: IdentityKeys.traits)
        regenerateAnonymousId()
    }

    /// `.perCall`: passes an event that names its person, fills an alias's `previousId` from
    /// its anonymousId, and rejects the rest — the first loudly, later ones at debug level.
    private func requireOwnIdentity(_ event: consuming Event) -> Event? {
        if event.type == .alias { event.previousId = event.previousId ?? event.anonymousId }
        let missing: String? =
            if event.userId == nil && event.anonymousId == nil {
                "carries neither userId nor anonymousId"
            } else if event.type == .alias && event.previousId == nil {
                "has no previousId (pass the previous id as EventOptions.anonymousId)"
            } else {
                nil
            }
        guard let missing else { return event }
        rejectedWithoutIdentity += 1
        let level: LogLevel = rejectedWithoutIdentity == 1 ? .warning : .debug
        logger?.log(level, "sdk.event_without_identity: rejected \(event.type.rawValue) \((event.event ?? event.name).map { "\"\($0)\" " } ?? "")in per-call identity mode: it \(missing) (\(rejectedWithoutIdentity) rejected so far)")
        problems?.count(InputProblem(code: .eventWithoutIdentity, keyPath: "userId", message: "per-call identity mode: the event \(missing)"))
        return nil
    }

    private func setUserId(_ newUserId: String) {
        guard newUserId != userId else { return }
        userId = newUserId
        store?.set(newUserId, forKey: IdentityKeys.userId)
    }

    private func regenerateAnonymousId() {
        anonymousId = UUID().uuidString.lowercased()
        store?.set(anonymousId, forKey: IdentityKeys.anonymousId)
    }
}
