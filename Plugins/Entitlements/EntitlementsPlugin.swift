import Foundation
import MetaRouterCore

/// Entitlements: which features the identified user gets, served from memory
/// (``EntitlementCache``), persisted per user (``EntitlementStore``), refreshed from an
/// ``EntitlementSource`` at start, after every identity change and every
/// ``EntitlementOptions/refreshIntervalSeconds``. A utility plugin: it sees no events, so a
/// client without it pays nothing per event.
///
/// A refresh that fails for an outage keeps the last known good set (and records when it
/// failed); one refused as unauthorized clears it. Answers are applied on the executor, only to
/// the user they were asked for, and only when newer than the answer applied last. Every change of the served set is reported to the change handlers, on the
/// executor, in order.
package final class EntitlementsPlugin: Plugin {
    /// Sees no events.
    package let type = PluginType.utility
    /// When the last refresh failed; `nil` after one succeeds.
    package private(set) var lastFailure: Date?
    package let cache: EntitlementCache
    let store: EntitlementStore
    let source: any EntitlementSource
    let refreshInterval: TimeInterval
    /// The identified user and the anonymous id, read from the identity plugin.
    let identity: @Sendable (Timeline) -> (userId: String?, anonymousId: String?)
    weak var analytics: AnalyticsClient?
    private var etag: String?
    private var nextFetch: UInt64 = 0
    private var appliedFetch: UInt64 = 0
    /// The fetch of the current generation — the identity since the last change applied —
    /// whose answer is awaited, if one is in flight; every change clears it. Fetches of earlier
    /// generations may still be in flight too; they never hold up this one.
    private var currentFetch: UInt64?
    /// Refreshes asked for while the current generation's fetch was in flight, and their callers.
    private var refetchWanted = false
    private var waitingReplies: [@Sendable (Result<Set<String>, EntitlementError>) -> Void] = []
    private var timer: (any ScheduledWork)?
    private var handlers: [@Sendable (EntitlementChange) -> Void] = []
    private var streams: [AsyncStream<EntitlementChange>.Continuation] = []
    /// The set last reported to the change handlers.
    private var reported: Set<String>?
    var purchases: [EntitlementStore.Purchase] = []
    var purchaseInFlight = false

    /// Entitlements from `source`, served through `cache`, stored in `store`.
    package init(
        source: any EntitlementSource, refreshInterval: TimeInterval, cache: EntitlementCache, store: EntitlementStore,
        identity: @escaping @Sendable (Timeline) -> (userId: String?, anonymousId: String?)
    ) {
        self.source = source
        self.refreshInterval = max(60, refreshInterval.isFinite ? refreshInterval : 900)
        self.cache = cache
        self.store = store
        self.identity = identity
    }

    /// Loads the waiting purchases, then (once every plugin has joined, so the identity is
    /// loaded) serves the stored set of the identified user and refreshes it.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        purchases = store.loadPurchases()
        cache.purchasesFound(purchases.map { ($0.transactionId, $0.evidence.utf8.count) })
        cache.beginUserChange()
        ExecutorHandle(self, on: analytics).perform { plugin, timeline in plugin.userDidChange(timeline) }
    }

    /// Stops the refresh timer and ends the change streams.
    package func shutdown() {
        timer?.cancel()
        timer = nil
        for stream in streams { stream.finish() }
        streams = []
    }

    // MARK: Identity

    /// An identity change was applied (see ``EntitlementCache``): the cache now belongs to the
    /// identified user, starting from that user's stored set, and a refresh starts.
    ///
    /// The contract (issue #62, item 6): once identity settles, the fetch for the user in force
    /// starts at once, whatever else is in flight. Every change starts a new generation, and a
    /// fetch of an earlier generation — however long its answer takes — never holds up the
    /// current one's. And a change applied while another is already called (the cache counts
    /// them from the call) loads and fetches nothing: that user's set would never be served, as
    /// every read answers `nil` until the next change is applied. Before, each of a storm's
    /// switches read the user's stored set from disk and the one fetch in flight held up the
    /// next, so under load the last user waited behind thousands of switches and answers.
    package func userDidChange(_ timeline: Timeline) {
        let current = identity(timeline).userId
        let superseded = cache.endUserChange(userId: current)
        // A new generation: nothing in flight is the current one's fetch.
        currentFetch = nil
        refetchWanted = false
        etag = nil
        report(nil)
        guard !superseded else { return }
        if let current, let stored = store.loadSet(for: current), cache.replace(stored.entitlements, userId: current) {
            etag = stored.etag
            report(stored.entitlements)
        }
        refresh(reply: nil)
        sendPurchases()
    }

    // MARK: Refresh

    /// Asks the source for the identified user's set; `reply` (if any) gets the outcome. While
    /// a fetch of the current generation is in flight the request waits for it, and one fetch
    /// for the user then in force follows as soon as its answer is in; a fetch of an earlier
    /// generation holds up nothing.
    package func refresh(reply: (@Sendable (Result<Set<String>, EntitlementError>) -> Void)?) {
        if let reply { waitingReplies.append(reply) }
        guard let userId = cache.userId, let analytics else {
            let replies = waitingReplies
            waitingReplies = []
            refetchWanted = false
            for reply in replies { reply(.failure(.notIdentified)) }
            return scheduleRefresh()
        }
        guard currentFetch == nil else {
            refetchWanted = true
            return
        }
        let replies = waitingReplies
        waitingReplies = []
        refetchWanted = false
        let tag = cache.entitlements == nil ? nil : etag
        nextFetch += 1
        let fetch = nextFetch
        currentFetch = fetch
        let source = source
        let answered: @Sendable (Result<Set<String>, EntitlementError>) -> Void = { result in for reply in replies { reply(result) } }
        // One task per fetch (a few an hour, one at a time per generation), never per event.
        let handle = ExecutorHandle(self, on: analytics)
        Task {
            let answer: Result<EntitlementAnswer, EntitlementError>
            do {
                answer = .success(try await source.entitlements(for: userId, etag: tag))
            } catch let error as EntitlementError {
                answer = .failure(error)
            } catch {
                answer = .failure(.unavailable(String(describing: error)))
            }
            handle.performPromptly(
                { plugin, _ in plugin.finish(answer, userId: userId, fetch: fetch, reply: replies.isEmpty ? nil : answered) },
                orIfGone: { answered(.failure(.notConfigured)) })
        }
    }

    private func finish(
        _ answer: Result<EntitlementAnswer, EntitlementError>, userId: String, fetch: UInt64,
        reply: (@Sendable (Result<Set<String>, EntitlementError>) -> Void)?
    ) {
        // Only the current generation's fetch ends the wait of what was asked meanwhile (a
        // caller, a timer) and schedules the next tick; an earlier one's answer changes neither.
        if currentFetch == fetch {
            currentFetch = nil
        }
        defer {
            if currentFetch == nil {
                if refetchWanted || !waitingReplies.isEmpty { refresh(reply: nil) } else { scheduleRefresh() }
            }
        }
        guard cache.userId == userId else { return reply?(.failure(.userChanged)) ?? () }
        // An answer older than one applied (or than `forget()`) changes nothing.
        guard fetch > appliedFetch else { return reply?(cache.entitlements.map { .success($0) } ?? .failure(.userChanged)) ?? () }
        switch answer {
        case .success(.entitlements(let keys, let tag)):
            appliedFetch = fetch
            cache.replace(keys, userId: userId)
            etag = tag
            lastFailure = nil
            do {
                try store.storeSet(EntitlementStore.StoredSet(entitlements: keys, etag: tag), for: userId)
            } catch {
                analytics?.logger.warning("sdk.entitlements_not_stored: \(error); the set is served in this run only")
            }
            report(keys)
            reply?(.success(keys))
        case .success(.unchanged):
            lastFailure = nil
            reply?(.success(cache.entitlements ?? []))
        case .failure(.unauthorized):
            appliedFetch = fetch
            lastFailure = analytics?.configuration.clock.now()
            cache.replace(nil, userId: userId)
            etag = nil
            store.removeSet(for: userId)
            report(nil)
            analytics?.logger.warning("sdk.entitlements_unauthorized: the entitlement source refused the write key; entitlements cleared")
            reply?(.failure(.unauthorized))
        case .failure(let error):
            lastFailure = analytics?.configuration.clock.now()
            analytics?.logger.info("sdk.entitlements_refresh_failed: \(error); the last known set stays")
            reply?(.failure(error))
        }
    }

    /// Refreshes (and retries waiting purchases) every interval while there is a user or a
    /// purchase to do it for; no timer otherwise.
    func scheduleRefresh() {
        timer?.cancel()
        timer = nil
        guard cache.userId != nil || !purchases.isEmpty, let analytics else { return }
        let handle = ExecutorHandle(self, on: analytics)
        timer = analytics.configuration.clock.schedule(after: refreshInterval) {
            handle.perform { plugin, _ in
                plugin.refresh(reply: nil)
                plugin.sendPurchases()
            }
        }
    }

    // MARK: Changes

    /// Calls `handler` with every later change, on the executor.
    package func onChange(_ handler: @escaping @Sendable (EntitlementChange) -> Void) {
        handlers.append(handler)
    }

    /// Yields every later change into `continuation` until its stream ends.
    package func addStream(_ continuation: AsyncStream<EntitlementChange>.Continuation) {
        streams.append(continuation)
    }

    /// Reports `entitlements` as the set served now, when it differs from the last reported.
    func report(_ entitlements: Set<String>?) {
        guard entitlements != reported else { return }
        let change = EntitlementChange(userId: cache.userId, old: reported, new: entitlements)
        reported = entitlements
        for handler in handlers { handler(change) }
        streams.removeAll { stream in
            if case .terminated = stream.yield(change) { return true }
            return false
        }
    }

    // MARK: Forget

    /// Clears the served set and removes every stored set and waiting purchase (logged);
    /// returns how many files there were.
    @discardableResult
    package func forget() -> Int {
        if let userId = cache.userId { cache.replace(nil, userId: userId) }
        report(nil)
        etag = nil
        appliedFetch = nextFetch
        purchases = []
        cache.purchasesForgotten()
        let removed = store.removeAll()
        analytics?.logger.info("sdk.entitlements_forgotten: \(removed) stored set(s) and waiting purchase(s) removed")
        return removed
    }
}
