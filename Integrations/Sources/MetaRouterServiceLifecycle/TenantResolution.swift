import Foundation
import Synchronization

/// One resolver call about one key, shared by every request that asks meanwhile: the first of
/// the resolver's answer and the deadline settles it, and every waiter gets that (`nil` for
/// the deadline). The call itself runs on a thread of its own (``ResolverExecutor``), so a
/// resolver that blocks its thread holds that thread, never one of the pool's that requests
/// for live tenants run on.
final class TenantResolution: Sendable {
    private enum Phase {
        case pending([CheckedContinuation<Bool?, Never>])
        case settled(Bool?)
    }

    private let phase = Mutex(Phase.pending([]))

    /// Whether the deadline passed before the resolver answered (its call may still run).
    var timedOut: Bool {
        phase.withLock { phase in
            if case .settled(nil) = phase { return true }
            return false
        }
    }

    /// Starts `isCustomer(writeKey)` on a thread of its own, and the deadline `timeout` seconds
    /// from now; `answered` runs with the resolver's answer whenever it comes, before the
    /// waiters are told (so they find it remembered).
    static func start(
        _ writeKey: String, timeout: TimeInterval, isCustomer: @escaping @Sendable (String) async -> Bool,
        answered: @escaping @Sendable (Bool) -> Void
    ) -> TenantResolution {
        let resolution = TenantResolution()
        Task(executorPreference: ResolverExecutor()) {
            let admitted = await isCustomer(writeKey)
            answered(admitted)
            resolution.settle(admitted)
        }
        let nanoseconds = Int(max(0, min(timeout, 3_600)) * 1_000_000_000)
        deadlines.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { resolution.settle(nil) }
        return resolution
    }

    /// The answer: the resolver's, or `nil` once the deadline passed.
    func answer() async -> Bool? {
        await withCheckedContinuation { continuation in
            let settled: Bool?? = phase.withLock { phase in
                switch phase {
                case .pending(var waiters):
                    waiters.append(continuation)
                    phase = .pending(waiters)
                    return .none
                case .settled(let answer):
                    return .some(answer)
                }
            }
            if case .some(let answer) = settled { continuation.resume(returning: answer) }
        }
    }

    /// Settles with `answer` unless settled already, and tells the waiters.
    private func settle(_ answer: Bool?) {
        let waiters = phase.withLock { phase -> [CheckedContinuation<Bool?, Never>] in
            guard case .pending(let waiters) = phase else { return [] }
            phase = .settled(answer)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: answer) }
    }

    /// Where the deadlines fire: a queue of its own, so a busy pool cannot hold one back.
    private static let deadlines = DispatchQueue(label: "metarouter.tenant-resolver-deadlines", qos: .utility)
}

/// Runs one resolver call's jobs on a serial queue of its own. A serial queue gets a thread
/// of its own when its work blocks (libdispatch's overcommitting pool), so a resolver that
/// blocks holds one such thread for as long as it blocks — and only one per key, since calls
/// are shared — while the cooperative pool keeps serving requests.
final class ResolverExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "metarouter.tenant-resolver", qos: .utility)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
