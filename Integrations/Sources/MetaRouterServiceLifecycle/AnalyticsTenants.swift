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
/// can, and its disk log is kept for when it returns or the next start. The disk log of every
/// tenant together stays within ``TenantLimits/diskBudgetBytes``.
///
/// ``AnalyticsService`` (or `VaporAnalyticsLifecycle`) starts the tenants, evicts the idle
/// ones and drains them all at graceful shutdown; requests after the drain began are refused.
public final class AnalyticsTenants: Sendable {
    private struct Live {
        let analytics: Analytics
        var lastUsed: ContinuousClock.Instant
        let diskBytes: Int
    }

    private struct State {
        var live: [String: Live] = [:]
        var evicting: [String: Task<Void, Never>] = [:]
        /// Disk bytes evicted tenants left undelivered, by key.
        var residues: [String: Int] = [:]
        /// Disk bytes promised to instances being made, by key.
        var reserved: [String: Int] = [:]
        var answers: TenantAnswers
        var draining = false
    }

    private enum Lookup {
        case live(Analytics)
        case evicting(Task<Void, Never>)
        case absent(admitted: Bool?)
        case draining
    }

    /// What the tenants may hold at once.
    public let limits: TenantLimits
    private let policy: TenantPolicy
    private let known: [String]
    private let options: @Sendable (String) -> InitOptions
    private let state: Mutex<State>
    private let refusals: TenantRefusals

    /// Tenants admitted by `policy`, each made with `options(writeKey)` within `limits`. The
    /// `known` tenants (admitted by the policy too) are made when the tenants start, and so is
    /// every allow-listed tenant whose disk log holds events from the last run, to deliver them.
    /// Refusals are logged to `logger`, one line per 10 s at most.
    public init(
        policy: TenantPolicy, limits: TenantLimits = TenantLimits(), known: [String] = [], logger: Logger? = nil,
        options: @escaping @Sendable (_ writeKey: String) -> InitOptions
    ) {
        self.policy = policy
        self.limits = limits
        self.known = known
        self.options = options
        self.refusals = TenantRefusals(logger: logger)
        self.state = Mutex(State(answers: TenantAnswers(capacity: limits.rememberedAnswers, refusalMemorySeconds: limits.refusalMemorySeconds)))
    }

    /// The live instance for `writeKey`, made if the policy admits the key; a lock and a lookup
    /// once it is live. Throws ``TenantRefusal`` for a key the policy does not admit, a
    /// malformed key, or once the drain began.
    public func instance(for writeKey: String) async throws(TenantRefusal) -> Analytics {
        guard isWellFormed(writeKey) else { throw refuse(.malformedKey, writeKey) }
        while true {
            switch lookup(writeKey) {
            case .live(let analytics):
                return analytics
            case .draining:
                throw refuse(.draining, writeKey)
            case .evicting(let eviction):
                await eviction.value
            case .absent(admitted: false):
                throw refuse(.unknownKey, writeKey)
            case .absent(admitted: nil):
                guard case .resolver(let isCustomer) = policy.rule else { throw refuse(.unknownKey, writeKey) }
                let admitted = await isCustomer(writeKey)
                state.withLock { $0.answers.remember(admitted, for: writeKey, now: .now) }
                if !admitted { throw refuse(.unknownKey, writeKey) }
            case .absent(admitted: true):
                if let made = make(writeKey) { return made }
            }
        }
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

    /// Makes the known tenants' instances, and delivers what allow-listed tenants' disk logs
    /// kept from the last run (a few tenants at a time; those not known are shut down again
    /// once delivered, unless a request came for them meanwhile).
    public func start() async {
        for writeKey in known { _ = try? await instance(for: writeKey) }
        let waiting = policy.listed.subtracting(known).filter { writeKey in
            options(writeKey).storageDirectory.map { DirectorySize.bytes(in: $0) > 0 } ?? false
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, writeKey) in waiting.sorted().enumerated() {
                if index >= 4 { await group.next() }
                group.addTask {
                    let began = ContinuousClock.now
                    guard (try? await self.instance(for: writeKey)) != nil else { return }
                    await self.evict(writeKey, ifUnusedSince: began)?.value
                }
            }
        }
    }

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

    private func lookup(_ writeKey: String) -> Lookup {
        let now = ContinuousClock.now
        return state.withLock { state -> Lookup in
            if state.draining { return .draining }
            if state.live[writeKey] != nil {
                state.live[writeKey]?.lastUsed = now
                return .live(state.live[writeKey]!.analytics)
            }
            if let eviction = state.evicting[writeKey] { return .evicting(eviction) }
            switch policy.rule {
            case .allowList(let keys): return .absent(admitted: keys.contains(writeKey))
            case .resolver: return .absent(admitted: state.answers.answer(for: writeKey, now: now))
            }
        }
    }

    /// Makes and admits `writeKey`'s instance (outside the lock: the options closure and the
    /// SDK's start may take their time), evicting the least recently used one past the cap.
    /// `nil` when the key's state changed meanwhile: look it up again.
    private func make(_ writeKey: String) -> (Analytics)? {
        var options = options(writeKey)
        let disk = state.withLock { state -> Int in
            let used = state.live.values.reduce(0) { $0 + $1.diskBytes } + state.reserved.values.reduce(0, +)
                + state.residues.filter { $0.key != writeKey }.values.reduce(0, +)
            let share = min(max(0, options.maxDiskBytes), limits.diskShare, max(0, limits.diskBudgetBytes - used))
            state.reserved[writeKey] = share
            return share
        }
        options.maxDiskBytes = disk
        // Less than a useful log: the queue stays in memory, and a residue stays where it is.
        if disk < Self.smallestLog { options.maxDiskEvents = 0 }
        let made = MetaRouter.Analytics.instance(for: options)
        let now = ContinuousClock.now
        return state.withLock { state -> (Analytics)? in
            state.reserved[writeKey] = nil
            if let live = state.live[writeKey] { return live.analytics }
            guard !state.draining, state.evicting[writeKey] == nil else {
                if state.evicting[writeKey] == nil { state.evicting[writeKey] = retire(writeKey, made, diskBytes: disk) }
                return nil
            }
            state.live[writeKey] = Live(analytics: made, lastUsed: now, diskBytes: disk)
            if disk >= Self.smallestLog { state.residues[writeKey] = nil }
            while state.live.count > max(1, limits.maxLiveTenants),
                let oldest = state.live.filter({ $0.key != writeKey }).min(by: { $0.value.lastUsed < $1.value.lastUsed })
            {
                state.live[oldest.key] = nil
                state.evicting[oldest.key] = retire(oldest.key, oldest.value.analytics, diskBytes: oldest.value.diskBytes)
                state.residues[oldest.key] = oldest.value.diskBytes
            }
            return made
        }
    }

    /// Evicts `writeKey` unless a request used it after `since`; the eviction's task, if any.
    @discardableResult
    private func evict(_ writeKey: String, ifUnusedSince since: ContinuousClock.Instant) -> Task<Void, Never>? {
        state.withLock { state -> Task<Void, Never>? in
            guard let live = state.live[writeKey], live.lastUsed <= since, !state.draining else { return nil }
            state.live[writeKey] = nil
            let eviction = retire(writeKey, live.analytics, diskBytes: live.diskBytes)
            state.evicting[writeKey] = eviction
            state.residues[writeKey] = live.diskBytes
            return eviction
        }
    }

    /// Shuts `analytics` down (delivering what it can within ``TenantLimits/evictionTimeout``),
    /// then records what its disk log still holds (counted as its whole share until then).
    private func retire(_ writeKey: String, _ analytics: Analytics, diskBytes: Int) -> Task<Void, Never> {
        let timeout = max(0, limits.evictionTimeout)
        let directory = options(writeKey).storageDirectory
        return Task {
            _ = await analytics.shutdown(timeout: timeout)
            let left = diskBytes < Self.smallestLog ? 0 : directory.map { min(DirectorySize.bytes(in: $0), diskBytes) } ?? diskBytes
            state.withLock { state in
                state.evicting[writeKey] = nil
                state.residues[writeKey] = left > 0 ? left : nil
            }
        }
    }

    private func isWellFormed(_ writeKey: String) -> Bool {
        !writeKey.isEmpty && writeKey.utf8.count <= limits.maxKeyBytes
            && writeKey.unicodeScalars.allSatisfy { !CharacterSet.controlCharacters.contains($0) }
    }

    private func refuse(_ refusal: TenantRefusal, _ writeKey: String) -> TenantRefusal {
        refusals.record(refusal, writeKey: writeKey)
        return refusal
    }

    /// A disk log smaller than this (64 KiB) is not worth opening.
    static let smallestLog = 64 * 1024
}
