import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Waiting runs on the monotonic clock: a wall clock set back or forward neither holds the
/// breaker open nor ends a wait early, and a server's `Retry-After` has a ceiling.
@Suite struct ClockJumpTests {
    private static let thirtyDays: TimeInterval = 30 * 24 * 3600

    /// Opens the breaker with three 503s: the next probe is due in 10 s.
    private func openBreaker(_ harness: DeliveryHarness) async throws {
        try await harness.collector.script([
            ScriptedResponse(status: 503), ScriptedResponse(status: 503), ScriptedResponse(status: 503),
        ])
        harness.track(2)
        await harness.client.flushAndWait()
        await harness.advance(by: 1)
        await harness.advance(by: 2)
        let state = await harness.status()
        #expect(state.circuitState == .open)
        #expect(state.circuitRemainingMs == 10_000)
    }

    @Test func aWallClockSetBackDoesNotHoldTheBreakerOpen() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await openBreaker(harness)
        harness.clock.moveWallClock(by: -Self.thirtyDays)
        #expect(await harness.status().circuitRemainingMs == 10_000)
        await harness.advance(by: 10)
        #expect(try await harness.collector.requests().map(\.status) == [503, 503, 503, 200])
        #expect(await harness.status().circuitState == .closed)
        #expect(try await harness.collector.acceptedEvents().compactMap(\.number) == [0, 1])
    }

    @Test func aWallClockSetForwardDoesNotEndTheCooldownEarly() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await openBreaker(harness)
        harness.clock.moveWallClock(by: Self.thirtyDays)
        #expect(await harness.status().circuitRemainingMs == 10_000)
        await harness.advance(by: 9)
        #expect(try await harness.collector.requests().count == 3)
        await harness.advance(by: 1)
        #expect(try await harness.collector.requests().map(\.status) == [503, 503, 503, 200])
    }

    @Test(arguments: ["999999999", "1e400", "Fri, 15 Jan 2100 08:00:20 GMT"])
    func anAbsurdRetryAfterWaitsTheCeiling(value: String) async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 429, headers: ["Retry-After": value])])
        harness.track(1)
        await harness.client.flushAndWait()
        await harness.advance(by: 299)
        #expect(try await harness.collector.requests().count == 1)
        await harness.advance(by: 1)
        #expect(try await harness.collector.requests().map(\.status) == [429, 200])
        #expect(harness.logs.messages.filter { $0.hasPrefix("sdk.retry_after_capped") }.count == 1)
    }

    @Test func aRetryAfterBelowTheCeilingIsHonoured() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 429, headers: ["Retry-After": "120"])])
        harness.track(1)
        await harness.client.flushAndWait()
        await harness.advance(by: 119)
        #expect(try await harness.collector.requests().count == 1)
        await harness.advance(by: 1)
        #expect(try await harness.collector.requests().count == 2)
        #expect(!harness.logs.messages.contains { $0.hasPrefix("sdk.retry_after_capped") })
    }
}
