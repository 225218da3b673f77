/// Whose identity events carry.
public enum IdentityMode: Sendable, Hashable {
    /// One device, one person at a time (apps): the anonymousId is created once and persisted;
    /// `identify`, `group` and `alias` change the stored identity that later events carry.
    case device
    /// Many people through one process (servers): nothing is read from or written to the
    /// identity store, and no anonymousId is created. Every event must carry its own `userId`
    /// or `anonymousId` (``EventOptions``); one that carries neither is rejected, logged and
    /// counted (`getDebugInfo().rejectedWithoutIdentity`). An `alias` takes its `previousId`
    /// from the call's `anonymousId`.
    case perCall
}
