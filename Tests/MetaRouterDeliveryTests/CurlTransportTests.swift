#if os(Linux)
import Foundation
import MetaRouterCore
import Testing

@testable import MetaRouterDelivery

/// The Linux default transport over real loopback HTTP: kept connections, every request
/// answered (URLSession stalled 1–4 % of these), headers and bodies read back, no header
/// injection, a dropped kept connection retried, and no request after `invalidate()`.
@Suite struct CurlTransportTests {
    private func send(_ transport: any HTTPTransport, _ request: TransportRequest) async -> Result<TransportResponse, any Error> {
        await withCheckedContinuation { continuation in
            transport.send(request) { continuation.resume(returning: $0) }
        }
    }

    private func batchRequest(_ collector: Collector, bytes: Int, headers: [String: String] = [:], timeout: TimeInterval = 10) -> TransportRequest {
        let filler = String(repeating: "x", count: max(0, bytes - 40))
        let body = Data(#"{"batch":[{"properties":{"f":"\#(filler)"}}]}"#.utf8)
        return TransportRequest(url: collector.baseURL.appendingPathComponent("v1/batch"), headers: headers, body: body, timeout: timeout)
    }

    @Test func isTheLinuxDefault() {
        #expect(HTTPTransports.standard(timeout: 5) is CurlTransport)
    }

    /// A body past the limit stops the download there and says so: 64 MiB offered, at most
    /// the limit kept and a few socket buffers' worth sent.
    @Test func aBodyPastTheLimitStopsTheDownloadAndIsReported() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(status: 200, body: "ruleset", padding: 64 << 20)])
        let transport = try #require(CurlTransport(maxResponseBytes: 1 << 20))
        let request = TransportRequest(url: collector.baseURL.appendingPathComponent("rules"), method: "GET", body: Data(), timeout: 30)
        guard case .success(let response) = await send(transport, request) else {
            Issue.record("the cut download was reported as a failure")
            return
        }
        #expect(response.status == 200)
        #expect(response.isTruncated)
        #expect(response.body.count == 1 << 20)
        #expect(try await collector.paddingSent() < 16 << 20)
        // The handle is fine afterwards.
        guard case .success(let next) = await send(transport, request) else {
            Issue.record("the next request failed")
            return
        }
        #expect(next.status == 200 && !next.isTruncated)
    }

    /// Through a pool of the test's own: the process's is shared with other tests, whose
    /// returned handles can close this one's idle connection as the least recently used.
    @Test func everyRequestIsAnsweredOnAKeptConnection() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let transport = try CurlTransport(pool: CurlConnectionPool(curl: #require(LibCurl.shared), maxIdle: 4))
        var failures: [String] = []
        for index in 0..<200 {
            let outcome = await send(transport, batchRequest(collector, bytes: index % 2 == 0 ? 66_000 : 900))
            switch outcome {
            case .success(let response) where response.status == 200: break
            case .success(let response): failures.append("\(index): status \(response.status)")
            case .failure(let error): failures.append("\(index): \(error.localizedDescription)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        let requests = try await collector.requests()
        #expect(requests.count == 200)
        #expect(Set(requests.map(\.clientPort)).count <= 2, "connections were not reused")
        #expect(requests.allSatisfy { $0.headers["expect"] == nil }, "a request waited for 100-continue")
    }

    /// Transports of different instances share the process's connections: twenty transports
    /// sending one after another to one host use one connection, not twenty, and leave one
    /// handle waiting. (A pool of the test's own: the process's is shared with other tests.)
    @Test func transportsShareConnectionsToAHost() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let pool = try CurlConnectionPool(curl: #require(LibCurl.shared), maxIdle: 4)
        for _ in 0..<20 {
            let transport = CurlTransport(pool: pool)
            #expect(try await send(transport, batchRequest(collector, bytes: 300)).get().status == 200)
            transport.invalidate()
        }
        let ports = Set(try await collector.requests().map(\.clientPort))
        #expect(ports.count == 1, "\(ports.count) connections for 20 transports")
        #expect(pool.idleCount == 1)
    }

    /// A pool keeps at most its limit of handles, across hosts, closing the least recently
    /// used: requests to two hosts through a pool that keeps one still all succeed.
    @Test func aPoolKeepsAtMostItsLimitAcrossHosts() async throws {
        let first = try await Collector.start()
        defer { first.stop() }
        let second = try await Collector.start()
        defer { second.stop() }
        let pool = try CurlConnectionPool(curl: #require(LibCurl.shared), maxIdle: 1)
        let transport = CurlTransport(pool: pool)
        for round in 0..<6 {
            let collector = round % 2 == 0 ? first : second
            #expect(try await send(transport, batchRequest(collector, bytes: 300)).get().status == 200)
            #expect(pool.idleCount == 1)
        }
        #expect(try await first.requests().count == 3)
        #expect(try await second.requests().count == 3)
    }

    @Test func readsStatusHeadersAndBodyAndSendsNoInjectedHeader() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        try await collector.script([ScriptedResponse(status: 429, headers: ["Retry-After": "7", "X-Trace": "a b"])])
        let transport = try #require(CurlTransport())
        let request = batchRequest(collector, bytes: 100, headers: [
            "Idempotency-Key": "key-1", "X-Injected": "v\r\nX-Evil: 1", "Content-Type": "application/json",
        ])
        let response = try await send(transport, request).get()
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "7")
        #expect(response.headers["x-trace"] == "a b")
        #expect(response.body == Data("{}".utf8))
        let recorded = try #require(try await collector.requests().first)
        #expect(recorded.headers["idempotency-key"] == "key-1")
        #expect(recorded.headers["x-evil"] == nil && recorded.headers["x-injected"] == nil)
        #expect(recorded.events.count == 1)
    }

    @Test func aDroppedKeptConnectionIsAPromptErrorOrARetryNeverAHang() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let transport = try #require(CurlTransport())
        _ = try await send(transport, batchRequest(collector, bytes: 500)).get()
        try await collector.script([ScriptedResponse(drop: true)])
        let start = Date()
        let outcome = await send(transport, batchRequest(collector, bytes: 500, timeout: 60))
        // libcurl re-sends a request whose reused connection died before any answer; the
        // collector answers the second copy. Either way the answer comes long before the
        // timeout (URLSession hung until it, every time).
        #expect(Date().timeIntervalSince(start) < 30)
        if case .success(let response) = outcome { #expect(response.status == 200) }
        let after = await send(transport, batchRequest(collector, bytes: 500))
        #expect((try? after.get().status) == 200)
    }

    @Test func refusesOtherSchemesAndRequestsAfterInvalidate() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let transport = try #require(CurlTransport())
        let file = TransportRequest(url: URL(fileURLWithPath: "/etc/hostname"), body: Data(), timeout: 5)
        await #expect(throws: URLError.self) { try await send(transport, file).get() }
        transport.invalidate()
        await #expect(throws: URLError.self) { try await send(transport, batchRequest(collector, bytes: 100)).get() }
        #expect(try await collector.requests().isEmpty)
    }
}
#endif
