import Foundation
import MetaRouter
import MetaRouterCore
import MetaRouterDelivery
import Testing

/// The Apple default transport, run here through FoundationNetworking over real loopback HTTP:
/// what it sends, how it reads an answer (status, headers, a body cut to its limit), a dropped
/// connection, and a client delivering through it. FoundationNetworking's URLSession can stall
/// a request on a busy machine (why Linux defaults to libcurl): a request that times out is
/// sent again, because what these tests check is how requests and answers are handled.
@Suite struct URLSessionTransportTests {
    private func send(_ transport: URLSessionTransport, _ request: TransportRequest) async -> Result<TransportResponse, any Error> {
        var outcome: Result<TransportResponse, any Error> = .failure(URLError(.unknown))
        for _ in 0..<3 {
            outcome = await withCheckedContinuation { continuation in
                transport.send(request) { continuation.resume(returning: $0) }
            }
            guard case .failure(let error as URLError) = outcome, error.code == .timedOut else { break }
        }
        return outcome
    }

    private func request(_ collector: Collector, bytes: Int = 100, headers: [String: String] = [:]) -> TransportRequest {
        let filler = String(repeating: "x", count: max(0, bytes - 40))
        let body = Data(#"{"batch":[{"properties":{"f":"\#(filler)"}}]}"#.utf8)
        return TransportRequest(url: collector.baseURL.appendingPathComponent("v1/batch"), headers: headers, body: body, timeout: 5)
    }

    @Test func sendsTheRequestAndReadsStatusHeadersAndBody() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(status: 429, headers: ["Retry-After": "7", "X-Trace": "a b"], body: #"{"error":"slow down"}"#)])
        let transport = URLSessionTransport(timeout: 5)
        defer { transport.invalidate() }
        let response = try await send(transport, request(collector, headers: ["Idempotency-Key": "key-1", "Content-Type": "application/json"])).get()
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "7")
        #expect(response.headers["x-trace"] == "a b")
        #expect(response.body == Data(#"{"error":"slow down"}"#.utf8))
        let recorded = try #require(try await collector.requests().first)
        #expect(recorded.headers["idempotency-key"] == "key-1")
        #expect(recorded.headers["content-type"] == "application/json")
        #expect(recorded.events.count == 1)
        #if os(Linux)
        // A kept connection the server drops is never completed by FoundationNetworking.
        #expect(recorded.headers["connection"] == "close")
        #endif
    }

    @Test func keepsNoMoreOfABodyThanItsLimit() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(body: String(repeating: "z", count: 5_000))])
        let transport = URLSessionTransport(timeout: 5, maxResponseBytes: 10)
        defer { transport.invalidate() }
        let response = try await send(transport, request(collector)).get()
        #expect(response.status == 200)
        #expect(response.body == Data(String(repeating: "z", count: 10).utf8))
        #expect(response.isTruncated)
    }

    /// A body far past the limit is kept only up to it as it arrives (memory stays at the
    /// limit), and the response says it was cut. (On Apple platforms the transfer also stops
    /// there; FoundationNetworking's tasks are never cancelled, so here the rest is dropped.)
    @Test func aBodyFarPastTheLimitIsCutAsItArrives() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(status: 200, body: "ruleset", padding: 8 << 20)])
        let transport = URLSessionTransport(timeout: 30, maxResponseBytes: 1 << 16)
        defer { transport.invalidate() }
        let response = try await send(transport, TransportRequest(
            url: collector.baseURL.appendingPathComponent("rules"), method: "GET", body: Data(), timeout: 30)).get()
        #expect(response.status == 200)
        #expect(response.isTruncated)
        #expect(response.body.count == 1 << 16)
        #expect(response.body.starts(with: Data("ruleset".utf8)))
    }

    @Test func carriesFullBatchesWhole() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let transport = URLSessionTransport(timeout: 5)
        defer { transport.invalidate() }
        let batch = request(collector, bytes: 66_000)
        for _ in 0..<5 {
            #expect(try await send(transport, batch).get().status == 200)
        }
        let requests = try await collector.requests()
        #expect(requests.count >= 5 && requests.allSatisfy { $0.events.count == 1 && $0.length == batch.body.count })
    }

    @Test func aDroppedConnectionIsAnErrorThenTheNextRequestGoesThrough() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(drop: true)])
        let transport = URLSessionTransport(timeout: 5)
        defer { transport.invalidate() }
        // Reported as an error, never as an answer (promptly here, on a fresh connection; a
        // stall on a busy machine ends in the timeout, an error too).
        let dropped = await withCheckedContinuation { continuation in
            transport.send(request(collector)) { continuation.resume(returning: $0) }
        }
        #expect(throws: (any Error).self) { try dropped.get() }
        #expect(try await send(transport, request(collector)).get().status == 200)
    }

    @Test func aClientDeliversThroughItExactlyOnceInOrder() async throws {
        let harness = try await DeliveryHarness { $0.transport = URLSessionTransport(timeout: 5) }
        defer { harness.stop() }
        harness.track(250)
        var rounds = 0
        while harness.stats.sent < 250, rounds < 20 {
            await harness.advance(by: 60)
            rounds += 1
        }
        let numbers = try await harness.collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == Array(0..<250))
        await harness.client.shutdown()
    }
}
