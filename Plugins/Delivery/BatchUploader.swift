import Foundation
import MetaRouterCore

/// The delivery engine under every ``DurableDestination``: a queue (the disk log, or memory),
/// flush policies, batching by count and bytes, one request in flight at a time, retry delays
/// and the circuit breaker. The destination supplies the wire (``UploadWire``).
///
/// Everything here runs on the owning client's executor: callbacks from the transport and
/// timers come back through `AnalyticsClient.performPromptly`, ahead of a backlog of incoming
/// events, so a flood of calls cannot starve delivery.
package final class BatchUploader {
    let options: Options
    let store: any EventStore
    /// The wire the uploader sends through: how events are queued, requests, and the
    /// classification of answers.
    private let wire: any UploadWire
    let transport: any HTTPTransport
    /// With ``Options/gzip``: bodies are compressed there, off the executor, just before they
    /// are handed to the transport.
    let compression: RequestCompression?
    /// With a wire that runs off the executor (a format of the integrator's): where its
    /// requests are written and its answers read, one at a time.
    let formatQueue: DispatchQueue?
    /// Which of this uploader's requests may still reach the transport.
    let departures = Locked(DepartureGate())
    let policies: [any FlushPolicy]
    let onPermanentFailure: (@Sendable (PermanentFailure) -> Void)?
    /// The counters behind ``stats``, readable from any thread.
    package let statsBox = Locked(DeliveryStats())

    /// Weak: the client owns this uploader through its timeline; a strong reference back would
    /// keep every client, its URLSession, timers and the event log's lock alive for good.
    private(set) weak var analytics: AnalyticsClient?
    private(set) var retries: RetryPlan
    private(set) var batchSize: Int
    private(set) var inFlight: InFlightRequest?
    /// The smallest batch size the host refused with 413 this session; batches stay below it.
    private var refusedBatchSize = Int.max
    var syncTimer: (any ScheduledWork)?
    private var attempts = 0
    var retryTimer: (any ScheduledWork)?
    var watchdog: RequestWatchdog
    private(set) var disabled = false
    /// Closed for good (the instance shut down): nothing is sent again, and an answer that
    /// arrives later changes nothing (the log, reopened, sends what is left under its keys).
    private var closed = false
    var commitScheduled = false
    /// A flush is sending everything that was queued when it was asked for: after each
    /// delivered batch the next leaves at once, until a batch takes the last queued event.
    private var draining = false
    /// Whether the policies have heard that events wait since their last flush.
    var policiesToldOfWaiting = false
    /// A full queue evicts on every call: one log line per interval, with the count.
    var evictionReports = ReportThrottle(interval: 10)
    private var waiters: [@Sendable () -> Void] = []

    /// Whether requests carry `Trace: true`.
    package var tracing = false {
        didSet { analytics?.assertOnExecutor() }
    }

    /// Creates an uploader over `store`, flushing by `policies`; it starts when
    /// ``start(analytics:)`` is called.
    package init(
        options: Options,
        store: any EventStore,
        wire: any UploadWire,
        transport: any HTTPTransport,
        policies: [any FlushPolicy],
        breakerRandom: @escaping @Sendable () -> Double = { Double.random(in: -1...1) },
        onPermanentFailure: (@Sendable (PermanentFailure) -> Void)? = nil
    ) {
        self.options = options
        self.store = store
        self.wire = wire
        self.transport = transport
        compression = options.gzip ? RequestCompression() : nil
        formatQueue = wire.runsOffExecutor ? DispatchQueue(label: "com.metarouter.format", qos: .utility) : nil
        self.policies = policies
        self.onPermanentFailure = onPermanentFailure
        retries = RetryPlan(options: options, random: breakerRandom)
        batchSize = max(1, options.maxBatchSize)
        watchdog = RequestWatchdog(limit: RequestWatchdog.limit(forRequestTimeout: options.requestTimeout))
    }

    /// Delivery counters, readable from any thread.
    package var stats: DeliveryStats { statsBox.current }

    /// Gzip bodies that left as they were compressed ahead, while the batch before them was in
    /// flight; readable from any thread.
    package var bodiesCompressedAhead: Int { compression?.sentPrepared.current ?? 0 }

    /// Binds to the client and starts the flush policies.
    ///
    /// - Parameter analytics: The client whose executor the uploader runs on.
    package func start(analytics: AnalyticsClient) {
        self.analytics = analytics
        resumeTimers()
    }

    /// Queues an event; starts a send when a policy says so and nothing is in flight or
    /// waiting to be retried (then the trigger does nothing: the answer or the retry sends).
    /// After a delivered batch, the next one leaves at once only while a flush is draining the
    /// queue or a policy calls for it (``Options/flushAt`` events are waiting),
    /// so that under a steady stream batches fill up instead of carrying whatever arrived
    /// during one round trip.
    ///
    /// - Parameter event: The event, queued for the next batch.
    package func enqueue(_ event: Event) {
        #if DEBUG  // the hot path: not even the weak load in release builds
        analytics?.assertOnExecutor()
        #endif
        guard !disabled else { return }
        let queued = QueuedEvent(messageId: event.messageId, timestamp: event.timestamp, payload: wire.encode(event))
        let evicted = store.append(queued)
        scheduleCommit()
        if !policiesToldOfWaiting { tellPoliciesOfWaiting() }
        statsBox.withLock { $0.enqueued += 1 }
        if !evicted.isEmpty { drop(evicted, reason: .queueFull, status: nil) }
        guard inFlight == nil, retryTimer == nil else { return }
        if policies.contains(where: { $0.shouldFlush(queued: store.count) }) { sendNext() }
    }

    /// Sends everything queued, one batch after another, starting now unless a request is in
    /// flight or a retry is waiting. `completion` runs on the executor when this attempt has
    /// resolved: what was queued has been sent (or dropped), or delivery is waiting out a retry
    /// delay, or the client is disabled.
    ///
    /// - Parameter completion: Runs on the executor once this attempt has resolved.
    package func flush(completion: (@Sendable () -> Void)? = nil) {
        analytics?.assertOnExecutor()
        if let completion { waiters.append(completion) }
        reportUnreportedEvictions()
        draining = true
        sendNext()
    }

    /// Gives the queue room for `count` events more than its limit, shrinking as events leave
    /// it: for a backlog replayed into it at once (the calls `shared` kept before
    /// `initialize(with:)`), which would otherwise evict its own oldest before one batch went.
    package func makeRoom(forMore count: Int) {
        analytics?.assertOnExecutor()
        store.makeRoom(forMore: count)
    }

    /// Makes everything queued durable now (background, terminate, shutdown).
    package func persist() {
        store.sync()
    }

    /// Drops everything queued. A batch in flight stays in flight — no second request starts
    /// beside it — and is not requeued: its answer reports it once, as sent or as dropped by
    /// the reset.
    package func reset() {
        discardQueued(reason: .reset)
        analytics?.lastEncodedEvent.clear()
    }

    /// Drops every event not yet delivered, counted under `reason`; a batch in flight is
    /// abandoned (its answer then counts it: delivered, or dropped under `reason`).
    package func discardQueued(reason: DropReason) {
        analytics?.assertOnExecutor()
        // A closed uploader's log is the next instance's.
        guard !closed else { return }
        retryTimer?.cancel()
        retryTimer = nil
        retries.restartDelay()
        var removed = store.removeAll()
        if let current = inFlight, !current.abandoned {
            inFlight?.abandonedFor = reason
            removed.removeFirst(min(removed.count, current.batch.events.count))
        }
        if !removed.isEmpty { drop(removed, reason: reason, status: nil) }
        resolveIfIdle()
    }

    /// Stops timers and policies, and makes what is queued durable.
    package func stop() {
        retryTimer?.cancel()
        retryTimer = nil
        syncTimer?.cancel()
        syncTimer = nil
        watchdog.cancel()
        for policy in policies { policy.stop() }
        store.sync()
    }

    /// Stops, makes what is queued durable, and releases the store (the event log's lock)
    /// and the transport's resources: the instance is shutting down.
    package func close() {
        analytics?.assertOnExecutor()
        guard !closed else { return }
        reportUnreportedEvictions()
        closed = true
        departures.withLock { $0.shut() }
        stop()
        store.close()
        guard let transport = transport as? any InvalidatableHTTPTransport else { return }
        // After the request being written and the body being compressed, if any, have been
        // handed over.
        let invalidate: @Sendable () -> Void = { [compression] in
            if let compression { compression.afterPending { transport.invalidate() } } else { transport.invalidate() }
        }
        if let formatQueue { formatQueue.async(execute: invalidate) } else { invalidate() }
    }

    // MARK: Sending

    func sendNext() {
        guard !disabled, !closed, inFlight == nil, retryTimer == nil, let analytics else { return resolveIfIdle() }
        let now = analytics.configuration.clock.uptime()
        guard retries.allowsRequest(at: now) else { return scheduleRetry(after: retries.remainingCooldown(at: now)) }
        guard let batch = store.nextBatch(maxCount: batchSize, maxBytes: options.maxBatchBytes) else {
            draining = false
            return resolveWaiters()
        }
        if store.count == batch.events.count { draining = false }
        // The batch's key and events reach the log (`write(2)`, which survives `kill -9`)
        // before the request leaves; the grouped `fsync` follows within `syncInterval` on a
        // background queue. (An `fsync` per request cost a fifth of the executor's time at
        // 1,000 batches/s, and writes back pages the acknowledgement would have freed.)
        store.commit()
        scheduleSync()
        let sentAt = analytics.configuration.clock.now()
        attempts += 1
        let attempt = attempts
        let leave = departure(of: batch, attempt: attempt, sentAt: sentAt, reading: formatQueue.map { ($0, wire, analytics.configuration.clock) })
        if let formatQueue {
            inFlight = InFlightRequest(attempt: attempt, started: now, batch: batch)
            armWatchdog(after: watchdog.limit)
            departures.withLock { $0.open(for: attempt) }
            formatQueue.async { [wire, uploaderHandle] in
                do {
                    leave(try wire.request(packed: batch.events, id: batch.idempotencyKey, sentAt: sentAt))
                } catch {
                    uploaderHandle.run { $0.handle(.failure(UnwritableBatch(error: error)), for: batch, attempt: attempt) }
                }
            }
            return
        }
        let request: TransportRequest
        do {
            request = try wire.request(packed: batch.events, id: batch.idempotencyKey, sentAt: sentAt)
        } catch {
            return refuseUnwritable(batch, error)
        }
        inFlight = InFlightRequest(attempt: attempt, started: now, batch: batch)
        armWatchdog(after: watchdog.limit)
        leave(request)
        if let compression { prepareNextBody(after: batch, in: compression, sentAt: sentAt) }
    }

    /// A batch the format could not write is dropped for good (counted `rejected`); the next
    /// goes as after an answer, from a later turn of the executor, so a run of them never nests.
    private func refuseUnwritable(_ batch: PendingBatch, _ error: any Error) {
        store.acknowledge(batch)
        drop(batch.events, reason: .rejected, status: nil, detail: "the destination's format could not write the batch: \(error)")
        scheduleCommit()
        uploaderHandle.run { $0.sendMore() }
    }

    /// While `batch` is in flight, has the body of the batch that would follow a delivery
    /// compressed ahead — when a whole batch is already waiting behind it (a partial one would
    /// likely grow before it leaves, and the work would be wasted).
    private func prepareNextBody(after batch: PendingBatch, in compression: RequestCompression, sentAt: Date) {
        let size = sizeAfterDelivery
        let next = store.upcoming(maxCount: size, maxBytes: options.maxBatchBytes)
        guard !next.isEmpty, next.count == size || store.count - batch.events.count > next.count else { return }
        guard let body = wire.bodyAhead(for: next, sentAt: sentAt) else { return }
        compression.prepare(body, for: .init(next), sentAt: sentAt)
    }

    /// The batch size once the batch in flight is delivered: it grows back toward the configured
    /// size, never to a size the host refused.
    private var sizeAfterDelivery: Int { min(options.maxBatchSize, refusedBatchSize - 1, batchSize > Int.max / 2 ? Int.max : batchSize * 2) }

    /// Acts on `attempt`'s outcome: `verdict` is the wire's reading of it when it was read off
    /// the executor (a format's), else it is read here.
    func handle(_ outcome: Result<TransportResponse, any Error>, for batch: PendingBatch, attempt: Int, verdict read: ResponseVerdict? = nil) {
        // An answer after a reset, or after the watchdog gave up on it, changes nothing.
        guard let current = inFlight, current.attempt == attempt, let analytics else { return }
        inFlight = nil
        if formatQueue != nil { departures.withLock { $0.settle() } }
        guard !closed else { return resolveWaiters() }
        defer { scheduleCommit() }
        if case .failure(let unwritable as UnwritableBatch) = outcome {
            if let reason = current.abandonedFor { return settleAbandoned(batch, verdict: .retry, reason: reason) }
            return refuseUnwritable(batch, unwritable.error)
        }
        if case .failure(let error as LocalResourcesExhausted) = outcome, !current.abandoned {
            return waitForResources(error, batch: batch)
        }
        let now = analytics.configuration.clock.uptime()
        let verdict = read ?? wire.classify(outcome, now: analytics.configuration.clock.now())
        if let reason = current.abandonedFor { return settleAbandoned(batch, verdict: verdict, reason: reason) }
        // A durable store keeps less in memory while nothing can leave.
        switch verdict {
        case .retry, .throttled: store.noteHost(failing: true)
        default: store.noteHost(failing: false)
        }
        switch verdict {
        case .delivered:
            retries.hostAnswered()
            store.acknowledge(batch)
            let first = statsBox.withLock { stats -> Bool in
                defer { stats.sent += batch.events.count }
                return stats.sent == 0
            }
            if first { analytics.logger.debug("sdk.first_event_sent: the first batch (\(batch.events.count) events) was accepted") }
            batchSize = sizeAfterDelivery
            sendMore()
        case .retry:
            statsBox.withLock { $0.retries += 1 }
            let wait = retries.hostFailed(at: now)
            describeFailure(outcome, batch: batch, wait: wait)
            scheduleRetry(after: wait)
        case .throttled(let retryAfter):
            statsBox.withLock { $0.retries += 1 }
            let (wait, asked) = retries.hostThrottled(retryAfter: retryAfter, at: now)
            if let asked {
                analytics.logger.warning(
                    "sdk.retry_after_capped: the host asked to wait \(asked.isFinite ? String(format: "%.0f", asked) : "forever") s; waiting the \(Int(ResponseClassifier.retryAfterCeiling)) s ceiling instead")
            }
            describeFailure(outcome, batch: batch, wait: wait)
            scheduleRetry(after: wait)
        case .tooLarge:
            retries.hostAnswered()
            if batch.events.count > 1 {
                refusedBatchSize = min(refusedBatchSize, batch.events.count)
                batchSize = max(1, min(batchSize, batch.events.count) / 2)
                analytics.logger.warning("sdk.batch_size_reduced: 413 for \(batch.events.count) events: batch size now \(batchSize) for this session")
                store.release(batch)
            } else {
                store.acknowledge(batch)
                drop(batch.events, reason: .tooLarge, status: 413)
            }
            // Never re-sent at once: the retry floor applies.
            scheduleRetry(after: options.initialRetryDelay)
        case .rejected(let status, let reason):
            retries.hostAnswered()
            store.acknowledge(batch)
            drop(batch.events, reason: .rejected, status: status, detail: reason)
            sendMore()
        case .fatal(let status):
            retries.hostAnswered()
            disabled = true
            stop()
            store.acknowledge(batch)
            drop(batch.events + store.removeAll(), reason: .disabled, status: status)
            analytics.disable(reason: "ingestion answered \(status): check the write key and ingestion host")
            resolveWaiters()
        }
    }

    /// The process could not even start the request (no descriptor, no thread): the host is
    /// not to blame, so the breaker is left alone; the batch stays at the head and is retried
    /// after the usual doubling delay. One log line per episode.
    private func waitForResources(_ error: LocalResourcesExhausted, batch: PendingBatch) {
        statsBox.withLock { $0.retries += 1 }
        let (wait, first) = retries.resourcesLacking()
        if first {
            analytics?.logger.error("sdk.resources_exhausted: batch of \(batch.events.count) not sent: \(error); retrying, the breaker is not affected")
        }
        scheduleRetry(after: wait)
    }

    /// The answer to a batch whose queue was dropped meanwhile (for `reason`): reported once,
    /// never requeued.
    private func settleAbandoned(_ batch: PendingBatch, verdict: ResponseVerdict, reason: DropReason) {
        if case .delivered = verdict {
            statsBox.withLock { $0.sent += batch.events.count }
        } else {
            drop(batch.events, reason: reason, status: nil)
        }
        sendMore()
    }

    /// After an answer: the next batch now if a flush is draining or a policy calls for it;
    /// otherwise delivery waits for the next trigger, and flushes waiting on this one resolve.
    private func sendMore() {
        if !draining { resolveWaiters() }
        if draining || policies.contains(where: { $0.shouldFlush(queued: store.count) }) { sendNext() }
    }

    private func resolveIfIdle() {
        if inFlight == nil { resolveWaiters() }
    }

    func resolveWaiters() {
        guard !waiters.isEmpty else { return }
        let resolved = waiters
        waiters = []
        for waiter in resolved { waiter() }
    }
}
