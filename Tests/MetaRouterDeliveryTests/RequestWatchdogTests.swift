import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Sends every request to the collector, but never hands back the answers to the requests
/// whose numbers (from 1) it was told to swallow: a host that never answers.
private final class SwallowingTransport: HTTPTransport, @unchecked Sendable {  // `sent` is only touched under `lock`
    private let inner = HTTPTransports.standard(timeout: 15)
    private let swallowed: Set<Int>
    private let lock = NSLock()
    private var sent = 0

    init(swallowing swallowed: Set<Int>) { self.swallowed = swallowed }

    var requestCount: Int { lock.withLock { sent } }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        let number = lock.withLock { () -> Int in
            sent += 1
            return sent
        }
        inner.send(request) { [swallowed] result in
            if !swallowed.contains(number) { completion(result) }
        }
    }

    /// Waits (up to 10 s of wall time) until `count` requests have been sent.
    func waitForRequests(_ count: Int) async throws {
        let deadline = Date().addingTimeInterval(10)
        while requestCount < count, Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(requestCount >= count)
    }
}

/// A request the transport never answers is given up after twice its timeout and a grace
/// period (5 s here: 15 s), counted as a network error and retried; one timer serves a
/// stream of requests, re-armed for what a younger request has left.
@Suite struct RequestWatchdogTests {
    @Test func aRequestThatNeverAnswersIsGivenUpAfterItsOwnDeadline() async throws {
        let transport = SwallowingTransport(swallowing: [2])
        let harness = try await DeliveryHarness { $0.transport = transport }
        defer { harness.stop() }
        // t = 0: the first request is answered; the watchdog's one timer is armed for t = 15.
        harness.track(1)
        harness.client.flush()
        _ = try await harness.collector.waitFor { $0.count == 1 }
        await harness.client.settle()
        #expect(harness.stats.sent == 1)
        // t = 10: the second request is sent and never answered.
        harness.clock.advance(by: 10)
        harness.track(1, from: 1)
        harness.client.flush()
        try await transport.waitForRequests(2)
        // t = 16: the timer fired at 15, found a request 5 s old, and was re-armed for t = 25.
        harness.clock.advance(by: 6)
        await harness.client.settle()
        #expect(await harness.status().flushInFlight)
        #expect(transport.requestCount == 2)
        // By t = 40 (twice the limit after it started, at the latest) it has been given up as
        // a timeout; the retry waits out the first delay (1 s). Moved a second at a time past
        // t = 26, so a check the executor ran a moment late still counts.
        harness.clock.advance(by: 10)
        await harness.client.settle()
        var elapsed = 26
        while await harness.status().flushInFlight, elapsed < 40 {
            harness.clock.advance(by: 1)
            await harness.client.settle()
            elapsed += 1
        }
        #expect(await harness.status().flushInFlight == false)
        #expect(harness.stats.retries == 1)
        harness.clock.advance(by: 1.5)
        await harness.client.settle()
        try await transport.waitForRequests(3)
        await harness.client.flushAndWait()
        #expect(harness.stats.sent == 2)
        // The swallowed request reached the collector too: the same batch, the same key.
        let requests = try await harness.collector.requests()
        #expect(requests.count == 3)
        let keys = requests.map { $0.headers["idempotency-key"] }
        #expect(keys[1] != nil && keys[1] == keys[2] && keys[0] != keys[1])
        #expect(requests[2].events.compactMap(\.number) == [1])
    }

    @Test func anIdleUploaderLeavesNoTimerBehind() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        harness.track(1)
        await harness.client.flushAndWait()
        #expect(harness.stats.sent == 1)
        // The check at t = 15 finds nothing in flight and does not re-arm.
        harness.clock.advance(by: 16)
        await harness.client.settle()
        #expect(harness.clock.pendingDelays.allSatisfy { $0 > 15 })
    }
}
