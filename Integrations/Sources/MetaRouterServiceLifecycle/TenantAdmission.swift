import Synchronization

/// One making of a tenant's instance, which every request for the key that arrives meanwhile
/// waits for (then looks the key up again): a burst of requests for a new tenant makes one
/// instance, measures the disk once and counts one admission.
final class TenantAdmission: Sendable {
    private let phase = Mutex<(finished: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once ``finish()`` was called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let finished = phase.withLock { phase in
                if !phase.finished { phase.waiters.append(continuation) }
                return phase.finished
            }
            if finished { continuation.resume() }
        }
    }

    /// Lets every waiter go, now and later.
    func finish() {
        let waiters = phase.withLock { phase in
            phase.finished = true
            defer { phase.waiters = [] }
            return phase.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
