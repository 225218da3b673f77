import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// Events that find the executor idle share one wake-up per millisecond; a lone event wakes it
/// at once.
@Suite struct EventWakePlannerTests {
    private let millisecond = EventWakePlanner.interval

    @Test func aLoneEventWakesAtOnceAndAStreamSharesOneWakeUpPerInterval() {
        var planner = EventWakePlanner()
        let start: UInt64 = 5_000_000_000
        #expect(planner.wake(at: start) == .now)
        // The executor went idle again 50 µs later: the next event waits for the interval's end.
        #expect(planner.wake(at: start + 50_000) == .at(start + millisecond))
        // After that wake-up, the stream goes on: one wake-up per interval, never two.
        #expect(planner.wake(at: start + millisecond + 30_000) == .at(start + 2 * millisecond))
        #expect(planner.wake(at: start + 2 * millisecond + 10_000) == .at(start + 3 * millisecond))
        // A pause longer than the interval: the next event is a lone one again.
        #expect(planner.wake(at: start + 10 * millisecond) == .now)
    }

    @Test func aTrickleOfEventsArrivesInOrderThroughDelayedWakeUps() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        // One event at a time, each after the executor has handled the one before (the
        // pattern of a server's requests): every wake-up after the first is a delayed one.
        for index in 0..<200 {
            client.track("t", properties: ["index": index])
            if index % 20 == 19 { await client.settle() }
        }
        await client.settle()
        #expect(capture.events.compactMap { $0.properties?["index"]?.int64Value } == (0..<200).map { Int64($0) })
    }
}
