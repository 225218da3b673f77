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
        switch watchdog.fired(started: inFlight?.started, now: analytics.configuration.clock.uptime()) {
        case .idle: break
        case .remaining(let delay): armWatchdog(after: delay)
        case .expired:
            if let current = inFlight { handle(.failure(URLError(.timedOut)), for: current.batch, attempt: current.attempt) }
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
