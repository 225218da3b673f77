import Foundation
import MetaRouterCore

/// The uploader's timers: the grouped commit and `fsync` of the event log, the request
/// watchdog and the retry delay. Each comes back to the executor through the uploader's handle.
extension BatchUploader {
    /// Groups log writes: the commit runs once the executor has worked through the events
    /// already waiting, or a few dozen of them under a backlog. An `fsync` follows within
    /// ``Options/syncInterval``.
    func scheduleCommit() {
        guard !commitScheduled, store.hasUncommittedRecords else { return }
        commitScheduled = true
        uploaderHandle.run { uploader in
            uploader.commitScheduled = false
            uploader.store.commit()
            uploader.scheduleSync()
        }
    }

    func scheduleSync() {
        guard syncTimer == nil, let analytics else { return }
        syncTimer = analytics.configuration.clock.schedule(after: options.syncInterval) { [uploaderHandle] in
            uploaderHandle.run { uploader in
                uploader.syncTimer = nil
                uploader.store.requestSync()
            }
        }
    }

    /// A transport that never answers must not stall delivery: past its timeout and a grace
    /// period, the attempt counts as a network error and a late answer is ignored. The request
    /// itself is never cancelled.
    func armWatchdog(after delay: TimeInterval) {
        guard let analytics else { return }
        watchdog.arm(after: delay, on: analytics.configuration.clock) { [uploaderHandle] in
            uploaderHandle.run { $0.checkWatchdog() }
        }
    }

    func checkWatchdog() {
        guard let analytics else { return }
        let now = analytics.configuration.clock.uptime()
        switch watchdog.fired(started: startOfRequestInFlight(now: now), now: now) {
        case .idle: break
        case .remaining(let delay): armWatchdog(after: delay)
        case .expired:
            if let current = inFlight { handle(.failure(URLError(.timedOut)), for: current.batch, attempt: current.attempt) }
        }
    }

    /// When the request in flight started, for the watchdog: with a format, when it reached the
    /// transport, or until then when the format was asked for it. A format's request found
    /// expired is settled in the same step, so it cannot reach the transport afterwards.
    private func startOfRequestInFlight(now: TimeInterval) -> TimeInterval? {
        guard let current = inFlight else { return nil }
        guard formatQueue != nil else { return current.started }
        return departures.withLock { state in
            guard state.attempt == current.attempt else { return current.started }
            let started = state.leftAt ?? current.started
            if watchdog.hasExpired(started: started, now: now) { state.settle() }
            return started
        }
    }

    func scheduleRetry(after delay: TimeInterval) {
        guard retryTimer == nil, let analytics else { return resolveWaiters() }
        retryTimer = analytics.configuration.clock.schedule(after: delay) { [uploaderHandle] in
            uploaderHandle.run { uploader in
                uploader.retryTimer = nil
                uploader.sendNext()
            }
        }
        resolveWaiters()
    }
}
