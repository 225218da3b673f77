import Foundation

/// Which write keys ``AnalyticsTenants`` may make an instance for. A key that comes with a
/// request (a header, a route parameter) is a stranger's until the policy admits it: an
/// unknown key never creates an instance, a directory or a connection.
public struct TenantPolicy: Sendable {
    enum Rule: Sendable {
        case allowList(Set<String>)
        case resolver(@Sendable (String) async -> Bool)
    }

    let rule: Rule

    /// Admits exactly `keys`; every other key is refused without any I/O.
    public static func allowList(_ keys: some Sequence<String>) -> TenantPolicy {
        TenantPolicy(rule: .allowList(Set(keys)))
    }

    /// Admits a key when `isCustomer(key)` says so — a lookup in the app's own customer
    /// records, say. Each answer is remembered (``TenantLimits/rememberedAnswers`` of them; a
    /// "no" for ``TenantLimits/refusalMemorySeconds``), so a busy tenant is asked about once and
    /// a stranger repeating one key costs one lookup a minute. Concurrent requests for one key
    /// share one call; the call runs on a thread of its own, never a request's, and a key whose
    /// answer takes longer than ``TenantLimits/resolverTimeoutSeconds`` is refused
    /// (``TenantRefusal/resolverTimeout``) until the call returns.
    public static func resolver(_ isCustomer: @escaping @Sendable (_ writeKey: String) async -> Bool) -> TenantPolicy {
        TenantPolicy(rule: .resolver(isCustomer))
    }

    /// The keys an allow-list names; empty for a resolver.
    var listed: Set<String> {
        if case .allowList(let keys) = rule { return keys }
        return []
    }
}

/// What ``AnalyticsTenants`` may hold at once, whatever requests arrive.
public struct TenantLimits: Sendable {
    /// Instances alive at once (64 by default). Admitting one more shuts the least recently
    /// used down first (its queue delivered or kept on disk).
    public var maxLiveTenants = 64
    /// Seconds without a request after which a tenant's instance is shut down (300 by default);
    /// its disk log is kept and delivered when it returns or at the next start.
    public var idleSeconds: TimeInterval = 300
    /// Bytes of disk log the whole process may hold for its tenants (1 GiB by default),
    /// counted by measuring the tenants' storage directories: the live instances' logs, what
    /// evicted tenants left undelivered and the logs found under the storage root at start.
    /// A tenant admitted while the measured bytes are below it gets a disk log of at most
    /// `diskBudgetBytes / maxLiveTenants` (no more than the room left); one admitted when they
    /// are not queues in memory only, and ``AnalyticsTenants/memoryOnlyAdmissions`` counts it.
    public var diskBudgetBytes = 1 << 30
    /// Seconds an evicted instance may take to deliver its queue before it stops (5 by default);
    /// what is left stays in its disk log, which the instance gives up as the time ends: the
    /// tenant's next request gets an instance that opens it (and delivers it), or the next
    /// start delivers it.
    public var evictionTimeout: TimeInterval = 5
    /// UTF-8 bytes a write key may have (256 by default); a longer key is refused unread.
    public var maxKeyBytes = 256
    /// Answers a resolver gave that are remembered (10,000 by default), oldest forgotten first.
    public var rememberedAnswers = 10_000
    /// Seconds a resolver's "no" is remembered (60 by default).
    public var refusalMemorySeconds: TimeInterval = 60
    /// Seconds a request waits for a resolver's answer about a new key (3 by default); past
    /// them the key is refused (``TenantRefusal/resolverTimeout``), and so is every request for
    /// it until the call returns.
    public var resolverTimeoutSeconds: TimeInterval = 3

    /// The defaults.
    public init() {}

    /// The disk log one live instance may hold.
    var diskShare: Int { max(0, diskBudgetBytes) / max(1, maxLiveTenants) }
}

/// Why ``AnalyticsTenants/instance(for:)`` gave no instance. Cheap to make: nothing is created
/// for the key.
public enum TenantRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The policy does not admit the key.
    case unknownKey
    /// The key is empty, too long or holds control characters.
    case malformedKey
    /// The tenants are draining for shutdown.
    case draining
    /// The resolver did not answer about the key within ``TenantLimits/resolverTimeoutSeconds``
    /// (or is still busy with it, or with as many new keys as it may be asked about at once).
    case resolverTimeout

    /// The reason as a metrics dimension: `unknown_key`, `malformed_key`, `draining`,
    /// `resolver_timeout`.
    public var description: String {
        switch self {
        case .unknownKey: "unknown_key"
        case .malformedKey: "malformed_key"
        case .draining: "draining"
        case .resolverTimeout: "resolver_timeout"
        }
    }
}
