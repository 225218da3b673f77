import Foundation
import MetaRouterCore

/// Busy threads that keep every core loaded while a test runs — the busy machine on which an
/// SDK thread waits behind others for its turn — until ``stop()``. Threads of their own (not
/// dispatch's workers, not the cooperative pool), so they take the CPU the way another
/// process's work would, without taking any thread the SDK or the test waits for.
final class CPUHogs: Sendable {
    private let stopped = Locked(false)
    /// Rounds of work done by all hogs (shows they ran).
    private let rounds = Locked(0)

    /// Starts `count` hogs (by default two per core).
    init(count: Int = ProcessInfo.processInfo.activeProcessorCount * 2) {
        for seed in 0..<max(1, count) {
            Thread.detachNewThread { [stopped, rounds] in
                var state = UInt64(seed + 1)
                while !stopped.current {
                    // About a millisecond of arithmetic between two looks at the flag.
                    for step in 0..<200_000 { state = state &* 6_364_136_223_846_793_005 &+ UInt64(step) }
                    rounds.withLock { $0 &+= Int(state & 1) | 1 }
                }
            }
        }
    }

    /// Rounds of work done so far.
    var work: Int { rounds.current }

    /// Ends every hog after its current round.
    func stop() {
        stopped.withLock { $0 = true }
    }
}
