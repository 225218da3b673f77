import Foundation
import Logging
import MetaRouter
import Synchronization

/// One analytics instance per tenant write key, for a server, admitted by a ``TenantPolicy``
/// and held within ``TenantLimits``. A key that arrives with a request is a stranger's: an
/// unknown one is refused (``TenantRefusal``) without making an instance, a directory or a
/// connection, counted, and logged once per 10 s at most. Admitted tenants live at most
/// ``TenantLimits/maxLiveTenants`` at once; one idle for ``TenantLimits/idleSeconds``, or the
/// least recently used when another must be admitted, is shut down after delivering what it
/// can, and its disk log is kept for when it returns or the next start. Every admitted tenant
/// gets a disk log while the tenants' measured disk use is below
/// ``TenantLimits/diskBudgetBytes``; past it, newcomers queue in memory only (logged once,
/// counted in ``memoryOnlyAdmissions``).
///
/// ``AnalyticsService`` (or `VaporAnalyticsLifecycle`) starts the tenants, evicts the idle
/// ones and drains them all at graceful shutdown; requests after the drain began are refused.
public final class AnalyticsTenants: Sendable {
    struct Live {
        let analytics: Analytics
        /// When a request last asked for it (a start's own use is not a request's).
        var lastUsed: ContinuousClock.Instant
        /// Whether a request asked for it: one only a start made goes first past the cap.
        var requested: Bool
        let directory: URL?
    }

    struct State {
        var live: [String: Live] = [:]
        var evicting: [String: Task<Void, Never>] = [:]
        /// The resolver calls in flight, by key.
        var resolving: [String: TenantResolution] = [:]
        /// The instances being made, by key.
        var making: [String: TenantAdmission] = [:]
        var disk = TenantDisk()
        var answers: TenantAnswers
        var draining = false
    }

    private enum Lookup {
        case live(Analytics)
        case evicting(Task<Void, Never>)
        case admitted
        case refused(TenantRefusal)
        case resolving(TenantResolution)
        case draining
    }

    /// What the tenants may hold at once.
    public let limits: TenantLimits
    let policy: TenantPolicy
    let known: [String]
    let options: @Sendable (String) -> InitOptions
    let state: Mutex<State>
    private let refusals: TenantRefusals
    private let logger: Logger?

    /// Tenants admitted by `policy`, each made with `options(writeKey)` within `limits`. The
    /// `known` tenants (admitted by the policy too) are made when the tenants start, and so is
    /// every tenant whose disk log holds events from the last run, to deliver them.
    /// Refusals are logged to `logger`, one line per 10 s at most.
    public init(
        policy: TenantPolicy, limits: TenantLimits = TenantLimits(), known: [String] = [], logger: Logger? = nil,
        options: @escaping @Sendable (_ writeKey: String) -> InitOptions
    ) {
        self.policy = policy
        self.limits = limits
        self.known = known
        self.options = options
        self.logger = logger
        self.refusals = TenantRefusals(logger: logger)
        self.state = Mutex(State(answers: TenantAnswers(capacity: limits.rememberedAnswers, refusalMemorySeconds: limits.refusalMemorySeconds)))
    }

    /// The live instance for `writeKey`, made if the policy admits the key; a lock and a lookup
    /// once it is live — never a wait for a resolver. Throws ``TenantRefusal`` for a key the
    /// policy does not admit, a malformed key, a resolver that did not answer in time, or once
    /// the drain began.
    public func instance(for writeKey: String) async throws(TenantRefusal) -> Analytics {
        try await admit(writeKey, usedAt: nil)
    }

    /// `analytics` for a request acting for `identity`: the tenant's instance, or — when
    /// ``instance(for:)`` refuses the key — one that drops (and counts) the request's calls.
    public func requestAnalytics(
        for writeKey: String, identity: RequestIdentity, decorate: @escaping @Sendable (EventOptions) -> EventOptions = { $0 }
    ) async -> RequestAnalytics {
        do {
            return RequestAnalytics(analytics: try await instance(for: writeKey), identity: identity, decorate: decorate)
        } catch {
            let refusals = self.refusals
            return RequestAnalytics(refusal: error, identity: identity) { refusals.droppedEvent() }
        }
    }

    /// The live instances (after a drain, the drained ones), by write key.
    public var instances: [(writeKey: String, analytics: Analytics)] {
        state.withLock { $0.live.map { ($0.key, $0.value.analytics) } }
    }

    /// Requests refused so far, by reason.
    public var refusalCounts: [TenantRefusal: Int] { refusals.snapshot.refusals }

    /// Events dropped because their request's tenant was refused.
    public var droppedEvents: Int { refusals.snapshot.droppedEvents }

    /// Bytes the tenants' storage directories held when last measured: the live tenants'
    /// (measured when a tenant is admitted: every time once they reach half the budget, every
    /// 100 ms at most below it), the evicted tenants' (when their eviction
    /// ended) and the logs found at ``start()``. What the disk budget counts.
    public var diskBytes: Int { state.withLock { $0.disk.total } }

    /// Tenants admitted with their queue in memory only because the measured disk use had
    /// reached ``TenantLimits/diskBudgetBytes``.
    public var memoryOnlyAdmissions: Int { state.withLock { $0.disk.memoryOnlyAdmissions } }

    /// Calls ``evictIdle()`` every quarter of ``TenantLimits/idleSeconds`` (once a minute at
    /// most, once a second at least) until the task is cancelled.
    public func evictIdleUntilCancelled() async {
        let sweep = max(1, min(60, limits.idleSeconds / 4))
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(sweep * 1_000_000_000))
            evictIdle()
        }
    }

    /// Shuts down the instances no request used for ``TenantLimits/idleSeconds``.
    public func evictIdle() {
        let cutoff = ContinuousClock.now - .milliseconds(Int64(max(0, min(limits.idleSeconds, 86_400 * 365)) * 1000))
        let idle = state.withLock { state in state.live.filter { $0.value.lastUsed < cutoff }.map(\.key) }
        for writeKey in idle { _ = evict(writeKey, ifUnusedSince: cutoff) }
    }

    /// Delivers or persists every instance's queue within `timeout` seconds, side by side, and
    /// stops them; later requests are refused (``TenantRefusal/draining``). Returns whether
    /// every accepted event was delivered or written to disk in time.
    @discardableResult
    public func drain(timeout: TimeInterval) async -> Bool {
        // The drained instances stay listed, so a last metrics reading sees what they did.
        let (live, evictions) = state.withLock { state -> ([Analytics], [Task<Void, Never>]) in
            state.draining = true
            return (state.live.values.map(\.analytics), Array(state.evicting.values))
        }
        let budget = max(0, timeout)
        return await withTaskGroup(of: Bool?.self) { group in
            for analytics in live { group.addTask { await analytics.shutdown(timeout: budget) } }
            for eviction in evictions {
                group.addTask {
                    await eviction.value
                    return true
                }
            }
            // A backstop: the drain returns by its deadline even if something overran its own.
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64((budget + 0.5) * 1_000_000_000))
                return nil
            }
            var complete = true
            for _ in 0..<(live.count + evictions.count) {
                guard let finished = await group.next(), let done = finished else {
                    complete = false
                    break
                }
                complete = complete && done
            }
            group.cancelAll()
            return complete
        }
    }

    // MARK: - Admission and eviction

    /// The live instance for `writeKey`, made if admitted. A request (`usedAt` nil) counts as
    /// a use; ``start()`` passes the instant it began, so its own use never keeps a tenant live.
    func admit(_ writeKey: String, usedAt: ContinuousClock.Instant?) async throws(TenantRefusal) -> Analytics {
        guard isWellFormed(writeKey) else { throw refuse(.malformedKey, writeKey) }
        while true {
            switch lookup(writeKey, byRequest: usedAt == nil) {
            case .live(let analytics):
                return analytics
            case .draining:
                throw refuse(.draining, writeKey)
            case .refused(let refusal):
                throw refuse(refusal, writeKey)
            case .evicting(let eviction):
                await eviction.value
            case .resolving(let resolution):
                switch await resolution.answer() {
                case nil: throw refuse(.resolverTimeout, writeKey)
                case false?: throw refuse(.unknownKey, writeKey)
                case true?: if let made = await makeOnce(writeKey, usedAt: usedAt) { return made }
                }
            case .admitted:
                if let made = await makeOnce(writeKey, usedAt: usedAt) { return made }
            }
        }
    }

    private func lookup(_ writeKey: String, byRequest: Bool) -> Lookup {
        let now = ContinuousClock.now
        return state.withLock { state -> Lookup in
            if state.draining { return .draining }
            if let live = state.live[writeKey] {
                if byRequest {
                    state.live[writeKey]?.lastUsed = now
                    state.live[writeKey]?.requested = true
                }
                return .live(live.analytics)
            }
            if let eviction = state.evicting[writeKey] { return .evicting(eviction) }
            switch policy.rule {
            case .allowList(let keys):
                return keys.contains(writeKey) ? .admitted : .refused(.unknownKey)
            case .resolver(let isCustomer):
                if let admitted = state.answers.answer(for: writeKey, now: now) { return admitted ? .admitted : .refused(.unknownKey) }
                if let resolution = state.resolving[writeKey] { return resolution.timedOut ? .refused(.resolverTimeout) : .resolving(resolution) }
                guard state.resolving.count < Self.maxResolving else { return .refused(.resolverTimeout) }
                // Starting a task and a timer under the lock: neither runs any code here.
                let resolution = TenantResolution.start(writeKey, timeout: limits.resolverTimeoutSeconds, isCustomer: isCustomer) { [weak self] admitted in
                    self?.state.withLock { state in
                        state.answers.remember(admitted, for: writeKey, now: .now)
                        state.resolving[writeKey] = nil
                    }
                }
                state.resolving[writeKey] = resolution
                return .resolving(resolution)
            }
        }
    }

    /// Makes `writeKey`'s instance unless another caller is making it; then waits for that and
    /// returns `nil` (look the key up again).
    private func makeOnce(_ writeKey: String, usedAt: ContinuousClock.Instant?) async -> Analytics? {
        let (admission, mine) = state.withLock { state -> (TenantAdmission, Bool) in
            if let making = state.making[writeKey] { return (making, false) }
            let admission = TenantAdmission()
            state.making[writeKey] = admission
            return (admission, true)
        }
        guard mine else {
            await admission.wait()
            return nil
        }
        defer {
            state.withLock { _ = $0.making.removeValue(forKey: writeKey) }
            admission.finish()
        }
        return make(writeKey, usedAt: usedAt)
    }

    /// Makes and admits `writeKey`'s instance (outside the lock: the options closure, the
    /// measuring and the SDK's start may take their time), evicting the least recently used
    /// one past the cap. `nil` when the key's state changed meanwhile: look it up again.
    private func make(_ writeKey: String, usedAt: ContinuousClock.Instant?) -> Analytics? {
        var options = options(writeKey)
        let directory = options.storageDirectory
        measure(newcomer: writeKey, directory: directory)
        let (disk, newlySpent, total) = state.withLock { state in
            let admitted = state.disk.admit(
                writeKey, asked: options.maxDiskBytes, share: limits.diskShare, budget: limits.diskBudgetBytes, smallest: Self.smallestLog)
            return (admitted.bytes, admitted.newlySpent, state.disk.total)
        }
        if newlySpent {
            logger?.warning(
                "analytics: the tenants' disk budget is spent; tenants admitted until it frees up queue in memory only",
                metadata: ["disk_bytes": .stringConvertible(total), "budget_bytes": .stringConvertible(limits.diskBudgetBytes)])
        }
        options.maxDiskBytes = disk
        // Less than a useful log: the queue stays in memory, and a log left on disk stays there.
        if disk < Self.smallestLog { options.maxDiskEvents = 0 }
        let made = MetaRouter.Analytics.instance(for: options)
        if disk >= Self.smallestLog, let directory { TenantFiles.noteKey(writeKey, in: directory) }
        let now = ContinuousClock.now
        return state.withLock { state -> Analytics? in
            if let live = state.live[writeKey] { return live.analytics }
            guard !state.draining, state.evicting[writeKey] == nil else {
                if state.evicting[writeKey] == nil { state.evicting[writeKey] = retire(writeKey, made, directory: directory) }
                return nil
            }
            state.live[writeKey] = Live(analytics: made, lastUsed: usedAt ?? now, requested: usedAt == nil, directory: directory)
            while state.live.count > max(1, limits.maxLiveTenants),
                let oldest = state.live.filter({ $0.key != writeKey }).min(by: Self.evictedFirst)
            {
                state.live[oldest.key] = nil
                state.evicting[oldest.key] = retire(oldest.key, oldest.value.analytics, directory: oldest.value.directory)
            }
            return made
        }
    }

    /// Whether `first` goes before `second` past the cap: one no request asked for (only a
    /// start, delivering its log), then the least recently used.
    private static func evictedFirst(_ first: (key: String, value: Live), _ second: (key: String, value: Live)) -> Bool {
        first.value.requested != second.value.requested ? !first.value.requested : first.value.lastUsed < second.value.lastUsed
    }

    /// Measures the newcomer's directory, and the live tenants' (outside the lock: it reads the
    /// file system, some 50 µs a directory) — at every admission once the measured bytes reach
    /// half the budget, and at most every 100 ms below it (so a churn of admissions on a
    /// mostly empty disk does not walk 64 directories each time).
    private func measure(newcomer writeKey: String, directory: URL?) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [(String, URL)] in
            let atRisk = state.disk.total >= max(0, limits.diskBudgetBytes) / 2
            guard atRisk || state.disk.lastSweep.map({ now - $0 >= .milliseconds(100) }) ?? true else { return [] }
            state.disk.lastSweep = now
            return state.live.compactMap { key, live in live.directory.map { (key, $0) } }
        }
        let sizes = due.map { ($0.0, $0.1, DirectorySize.bytes(in: $0.1)) }
        let own = directory.map { DirectorySize.bytes(in: $0) }
        state.withLock { state in
            for (key, url, bytes) in sizes where state.live[key] != nil { state.disk.record(bytes, for: key, path: url.standardizedFileURL.path) }
            if let own, let directory, state.live[writeKey] == nil, state.evicting[writeKey] == nil {
                state.disk.record(own, for: writeKey, path: directory.standardizedFileURL.path)
            }
        }
    }

    /// Evicts `writeKey` unless a request used it after `since`; the eviction's task, if any.
    @discardableResult
    func evict(_ writeKey: String, ifUnusedSince since: ContinuousClock.Instant) -> Task<Void, Never>? {
        state.withLock { state -> Task<Void, Never>? in
            guard let live = state.live[writeKey], live.lastUsed <= since, !state.draining else { return nil }
            state.live[writeKey] = nil
            let eviction = retire(writeKey, live.analytics, directory: live.directory)
            state.evicting[writeKey] = eviction
            return eviction
        }
    }

    /// Shuts `analytics` down (delivering what it can within ``TenantLimits/evictionTimeout``),
    /// then measures what its disk log still holds (counted as last measured until then).
    private func retire(_ writeKey: String, _ analytics: Analytics, directory: URL?) -> Task<Void, Never> {
        let timeout = max(0, limits.evictionTimeout)
        return Task {
            _ = await analytics.shutdown(timeout: timeout)
            let left = directory.map { DirectorySize.bytes(in: $0) }
            state.withLock { state in
                state.evicting[writeKey] = nil
                if let left, let directory { state.disk.record(left, for: writeKey, path: directory.standardizedFileURL.path) }
            }
        }
    }

    func isWellFormed(_ writeKey: String) -> Bool {
        !writeKey.isEmpty && writeKey.utf8.count <= limits.maxKeyBytes
            && writeKey.unicodeScalars.allSatisfy { !CharacterSet.controlCharacters.contains($0) }
    }

    private func refuse(_ refusal: TenantRefusal, _ writeKey: String) -> TenantRefusal {
        refusals.record(refusal, writeKey: writeKey)
        return refusal
    }

    /// A disk log smaller than this (64 KiB) is not worth opening.
    static let smallestLog = 64 * 1024
    /// Resolver calls in flight at most (one per key): a flood of new keys waits on no more
    /// threads than this; a key beyond them is refused (``TenantRefusal/resolverTimeout``).
    static let maxResolving = 64
}
