import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// `shared`'s binding while eight threads call it at full speed, in process: the keeping engine
/// is behind by then, so its track calls are packed, and every call must reach the instance or
/// be counted, in each thread's order. (A call packed between the look for a successor and the
/// append once went, uncounted, to the engine that had handed over; this stress did not hit that
/// window in 20 rounds, the adversary's program with four racing `initialize` calls did, 8 runs
/// of 10. The look is now made again under the append's lock.) Several rounds, each with a
/// `shared`-like object of its own.
@Suite struct BindingRaceTests {
    @Test(arguments: 0..<4)
    func callsPackedWhileBindingAreNeitherLostNorReordered(round: Int) async throws {
        let threads = 8, calls = 4_000
        let capture = CapturingDestination()
        let unbound = MetaRouter.Analytics.unboundShared()
        let instance = MetaRouter.Analytics.capturing(into: capture, writeKey: "binding-race-\(round)-\(UUID())")
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread.detachNewThread {
                for index in 0..<calls {
                    if index == calls / 4 { started.signal() }
                    if index % 3 == 1 {
                        unbound.screen("T\(thread)", properties: ["n": index])
                    } else {
                        unbound.track("T\(thread)", properties: ["n": index])
                    }
                }
                finished.leave()
            }
        }
        for _ in 0..<threads { started.wait() }
        unbound.bind(instance)
        finished.wait()
        await instance.performAndWait { _ in }
        let overflow = await unbound.getDebugInfo().stats.dropped[.overflow] ?? 0
        await instance.shutdown()
        var byThread: [String: [Int]] = [:]
        for event in capture.events {
            guard let name = event.event ?? event.name, let number = event.properties?["n"]?.int64Value else { continue }
            byThread[name, default: []].append(Int(number))
        }
        let received = byThread.values.map(\.count).reduce(0, +)
        #expect(received + overflow == threads * calls, "received \(received) + overflow \(overflow) of \(threads * calls)")
        for (thread, numbers) in byThread {
            #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "\(thread) out of order or twice")
        }
    }

    /// An `initialize(with:)` with invalid options does not take `shared`: the calls kept
    /// before it reach the next instance with valid options, none lost or left uncounted.
    @Test func anInertInstanceDoesNotTakeShared() async throws {
        let unbound = MetaRouter.Analytics.unboundShared()
        for index in 0..<5 { unbound.track("Kept", properties: ["n": index]) }
        var invalid = InitOptions(writeKey: "", ingestionHost: "http://127.0.0.1:9")
        invalid.keyValueStore = InMemoryKeyValueStore()
        let inert = MetaRouter.Analytics.instance(for: invalid)
        #expect(inert.configurationError != nil)
        #expect(!unbound.bind(inert))
        let capture = CapturingDestination()
        let valid = MetaRouter.Analytics.capturing(into: capture, writeKey: "after-inert-\(UUID())")
        #expect(unbound.bind(valid))
        unbound.track("Kept", properties: ["n": 5])
        await valid.performAndWait { _ in }
        #expect(capture.events.compactMap { $0.properties?["n"]?.int64Value } == [0, 1, 2, 3, 4, 5])
        await valid.shutdown()
    }
}
