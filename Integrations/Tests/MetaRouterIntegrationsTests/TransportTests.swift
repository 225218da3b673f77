import Foundation
import MetaRouter
import MetaRouterAsyncHTTPClient
import Testing

/// The AsyncHTTPClient transport as the SDK's own transports are tested: the status, headers
/// and body both ways, the answer's body cap, a request's timeout, a dropped connection — and
/// the SDK delivering through it.
@Suite struct TransportTests {
    private func send(_ request: TransportRequest, maxResponseBytes: Int = 1 << 20) async -> Result<TransportResponse, any Error> {
        await withCheckedContinuation { continuation in
            AsyncHTTPClientTransport(maxResponseBytes: maxResponseBytes).send(request) { continuation.resume(returning: $0) }
        }
    }

    @Test func reportsTheStatusHeadersAndBody() async throws {
        let server = try await TestServer.start()
        let request = TransportRequest(
            url: server.baseURL.appendingPathComponent("status/503"), headers: ["X-Test": "sent"], body: Data("12345".utf8), timeout: 10)
        let response = try await send(request).get()
        #expect(response.status == 503)
        #expect(response.headers["x-echo-header"] == "sent" && response.headers["x-echo-length"] == "5")
        #expect(String(decoding: response.body, as: UTF8.self) == "answer 503" && !response.isTruncated)
        await server.stop()
    }

    @Test func capsTheBodyAndSaysSo() async throws {
        let server = try await TestServer.start()
        let response = try await send(TransportRequest(url: server.baseURL.appendingPathComponent("big"), method: "GET", body: Data(), timeout: 10), maxResponseBytes: 1000).get()
        #expect(response.status == 200 && response.body.count == 1000 && response.isTruncated)
        await server.stop()
    }

    @Test func aSlowAnswerTimesOutAndADroppedConnectionFails() async throws {
        let server = try await TestServer.start()
        let slow = await send(TransportRequest(url: server.baseURL.appendingPathComponent("slow"), method: "GET", body: Data(), timeout: 0.3))
        #expect(throws: (any Error).self) { try slow.get() }
        let dropped = await send(TransportRequest(url: server.baseURL.appendingPathComponent("drop"), method: "GET", body: Data(), timeout: 10))
        #expect(throws: (any Error).self) { try dropped.get() }
        await server.stop()
    }

    @Test func theSDKDeliversThroughIt() async throws {
        let server = try await TestServer.start()
        let directory = try TestDirectory()
        defer { directory.remove() }
        var options = InitOptions(writeKey: "transport-\(UUID())", ingestionHost: server.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.transport = AsyncHTTPClientTransport()
        let analytics = MetaRouter.Analytics.instance(for: options)
        for index in 0..<250 { analytics.track("Event \(index)") }
        await analytics.flushAndWait()
        #expect(await analytics.shutdown(timeout: 10))
        #expect(server.accepted == (0..<250).map { "Event \($0)" })
        await server.stop()
    }
}
