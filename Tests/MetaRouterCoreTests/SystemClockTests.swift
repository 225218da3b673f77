import Foundation
import Testing

@testable import MetaRouterCore

@Suite struct SystemClockTests {
    private final class Payload: Sendable {}

    /// A cancelled timer lets go of its work and what the work captured (delivery's watchdog
    /// once kept every batch for 35 s this way: hundreds of megabytes at full speed).
    @Test func cancellingReleasesTheWork() async throws {
        weak var released: Payload?
        do {
            let payload = Payload()
            released = payload
            let work = SystemClock().schedule(after: 3_600) { _ = payload }
            work.cancel()
        }
        // Dispatch disposes of a cancelled source's handler on its queue, soon after.
        for _ in 0..<500 where released != nil { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(released == nil)
    }

    @Test func scheduledWorkRunsOnceAndHostileDelaysDoNotTrap() async {
        let runs = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = SystemClock().schedule(after: 0.01) {
                runs.withLock { $0 += 1 }
                done.resume()
            }
        }
        #expect(runs.current == 1)
        for delay in [Double.nan, .infinity, -.infinity, 1e300, -5] { SystemClock().schedule(after: delay) {}.cancel() }
    }
}

@Suite struct ReportThrottleTests {
    /// The first occurrence is reported, then one report per interval with the count since
    /// the last; a clock that went back reports at once instead of going quiet.
    @Test func reportsOncePerIntervalWithTheCount() {
        var throttle = ReportThrottle(interval: 10)
        #expect(throttle.add(1, at: 100) == 1)
        #expect(throttle.add(3, at: 101) == nil)
        #expect(throttle.add(2, at: 109.9) == nil)
        #expect(throttle.add(1, at: 110) == 6)
        #expect(throttle.add(4, at: 50) == 4)
    }
}
