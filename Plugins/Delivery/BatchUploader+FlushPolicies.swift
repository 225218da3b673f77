import MetaRouterCore

/// The flush policies' side of the uploader: a count policy is asked on every enqueue; a timed
/// policy hears once that events wait, arms its timer, and flushes when it fires — so an
/// instance with nothing queued has no timer running. All on the executor.
extension BatchUploader {
    /// Stops the flush policies' timers (the app went to the background).
    package func pauseTimers() {
        for policy in policies { policy.stop() }
    }

    /// Restarts the flush policies; a timed one arms itself again if events are waiting.
    package func resumeTimers() {
        guard let analytics, !disabled else { return }
        for policy in policies {
            policy.stop()
            policy.start(clock: analytics.configuration.clock) { [uploaderHandle] in uploaderHandle.run { $0.policyFlush() } }
        }
        policiesToldOfWaiting = false
        if store.count > 0 { tellPoliciesOfWaiting() }
    }

    /// Events wait: timed policies arm (once until one of them flushes).
    func tellPoliciesOfWaiting() {
        policiesToldOfWaiting = true
        for policy in policies { policy.eventsWaiting() }
    }

    /// A policy's timer asked for a flush: events that arrive from now on arm it again.
    private func policyFlush() {
        policiesToldOfWaiting = false
        flush()
    }
}
