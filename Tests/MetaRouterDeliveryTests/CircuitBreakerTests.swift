import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@Suite struct CircuitBreakerTests {
    @Test func opensAfterThresholdAndCoolsDownWithJitterBounds() {
        let start: TimeInterval = 0
        for jitter in [-1.0, 0, 1] {
            var breaker = CircuitBreaker(random: { jitter })
            breaker.recordFailure(at: start)
            breaker.recordFailure(at: start)
            #expect(breaker.state == .closed)
            breaker.recordFailure(at: start)
            #expect(breaker.state == .open)
            #expect(abs(breaker.remainingCooldown(at: start) - 10 * (1 + 0.2 * jitter)) < 1e-9)
        }
    }

    @Test func halfOpenProbeFailureDoublesCooldownUpToTheMaximum() {
        var breaker = CircuitBreaker(random: { 0 })
        var now: TimeInterval = 0
        for _ in 0..<3 { breaker.recordFailure(at: now) }
        var cooldowns: [TimeInterval] = []
        for _ in 0..<6 {
            let remaining = breaker.remainingCooldown(at: now)
            cooldowns.append(remaining)
            let early = breaker.allowsRequest(at: now + remaining - 0.001)
            #expect(!early)
            now += remaining
            let due = breaker.allowsRequest(at: now)
            #expect(due)
            #expect(breaker.state == .halfOpen)
            breaker.recordFailure(at: now)
        }
        #expect(cooldowns == [10, 20, 40, 80, 120, 120])
        now += breaker.remainingCooldown(at: now)
        let probe = breaker.allowsRequest(at: now)
        #expect(probe)
        breaker.recordSuccess()
        #expect(breaker.state == .closed)
        for _ in 0..<3 { breaker.recordFailure(at: now) }
        #expect(breaker.remainingCooldown(at: now) == 10)
    }

    /// End to end: three 503s open the breaker; nothing is sent while it is open, events keep
    /// being accepted, one probe goes after the cooldown, and its success closes it.
    @Test func breakerOverRealHTTP() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([
            ScriptedResponse(status: 503), ScriptedResponse(status: 503), ScriptedResponse(status: 503),
            ScriptedResponse(status: 503),
        ])
        harness.track(2)
        await harness.client.flushAndWait()
        await harness.advance(by: 1)
        await harness.advance(by: 2)
        var state = await harness.status()
        #expect(state.circuitState == .open)
        #expect(state.circuitRemainingMs == 10_000)
        harness.track(3, from: 2)
        await harness.client.flushAndWait()
        #expect(try await harness.collector.requests().count == 3)
        #expect(await harness.status().queueLength == 5)
        await harness.advance(by: 9.9)
        #expect(try await harness.collector.requests().count == 3)
        await harness.advance(by: 0.1)
        // The probe failed: open again, cooldown doubled.
        state = await harness.status()
        #expect(try await harness.collector.requests().count == 4)
        #expect(state.circuitState == .open)
        #expect(state.circuitRemainingMs == 20_000)
        await harness.advance(by: 20)
        state = await harness.status()
        #expect(state.circuitState == .closed)
        let accepted = try await harness.collector.acceptedEvents()
        #expect(accepted.compactMap(\.number) == [0, 1, 2, 3, 4])
        let keys = try await harness.collector.requests().map { $0.headers["idempotency-key"] }
        #expect(Set(keys.prefix(5)).count == 1)
    }
}
