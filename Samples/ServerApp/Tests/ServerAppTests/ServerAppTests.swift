import AsyncHTTPClient
import Foundation
import MetaRouter
import MetaRouterCLIKit
import Testing

/// Starts the collector and the server executable, sends requests for two tenants, sends
/// SIGTERM, and checks that every tracked request arrived — per tenant, per user.
@Suite struct ServerAppTests {
    private var executable: URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let urls = candidates.compactMap { $0?.appendingPathComponent("ServerApp") }
        return urls.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? urls[0]
    }

    @Test func trackedRequestsArriveAndSIGTERMDrainsTheQueue() async throws {
        let collector = LocalCollector()
        let host = try await collector.start()
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("server-app-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storage) }

        let process = Process()
        process.executableURL = executable
        process.arguments = ["--ingestion-host", host.absoluteString, "--port", "0", "--storage", storage.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let port = try #require(Int(String(decoding: line, as: UTF8.self).replacingOccurrences(of: "listening ", with: "")))

        // The last two requests name only their user: their events must carry no anonymousId
        // (per-call identity), not one the process made up and shares between users.
        for index in 0..<12 {
            let tenant = index % 2 == 0 ? "tenant-a-key" : "tenant-b-key"
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/tenants/\(tenant)/checkout")
            request.method = .POST
            request.headers.add(name: "X-User-Id", value: "user-\(index)")
            if index < 10 { request.headers.add(name: "X-Anonymous-Id", value: "anon-\(index)") }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(response.status.code == 202)
        }
        // Fewer events than a flush needs and a 5 s interval: they are still queued here.
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        if process.isRunning { process.interrupt() }
        await collector.stop()

        let events = collector.acceptedEvents
        #expect(events.count == 12)
        #expect(Set(events.compactMap { $0["userId"]?.stringValue }) == Set((0..<12).map { "user-\($0)" }))
        for event in events {
            let user = event["userId"]?.stringValue ?? ""
            let index = Int(user.dropFirst(5)) ?? -1
            #expect(event["anonymousId"]?.stringValue == (index < 10 ? "anon-\(index)" : nil))
            #expect(event["writeKey"]?.stringValue == (index % 2 == 0 ? "tenant-a-key" : "tenant-b-key"))
            #expect(event["context"]?["app"]?["name"] == "checkout-service")
        }
        #expect(collector.received.allSatisfy { $0.problems.isEmpty })
    }
}
