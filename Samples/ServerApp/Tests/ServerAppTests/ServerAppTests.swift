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

    /// Starts the server for the customers `tenant-a-key` and `tenant-b-key`; its process and port.
    private func startServer(host: URL, storage: URL) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--ingestion-host", host.absoluteString, "--port", "0", "--storage", storage.path, "--tenants", "tenant-a-key,tenant-b-key"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let port = try #require(Int(String(decoding: line, as: UTF8.self).replacingOccurrences(of: "listening ", with: "")))
        return (process, port)
    }

    @Test func trackedRequestsArriveAndSIGTERMDrainsTheQueue() async throws {
        let collector = LocalCollector()
        let host = try await collector.start()
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("server-app-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storage) }
        let (process, port) = try startServer(host: host, storage: storage)

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

    /// 3,000 requests naming random tenant keys, 16 at a time: the server admits none of them —
    /// no instance, no directory, descriptors and memory flat, nothing sent upstream under
    /// those keys — counts them in its metrics, and still drains its customers at SIGTERM.
    @Test func strangersKeysCreateNothing() async throws {
        let collector = LocalCollector()
        let host = try await collector.start()
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("server-app-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storage) }
        let (process, port) = try startServer(host: host, storage: storage)
        let pid = process.processIdentifier

        func checkout(_ tenant: String, user: String) async throws -> UInt {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/tenants/\(tenant)/checkout")
            request.method = .POST
            request.headers.add(name: "X-User-Id", value: user)
            return try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code
        }
        func strangers(_ count: Int) async throws {
            try await withThrowingTaskGroup(of: UInt.self) { group in
                for index in 0..<count {
                    if index >= 16, let status = try await group.next() { #expect(status == 202) }
                    group.addTask { try await checkout(UUID().uuidString, user: "stranger-\(index)") }
                }
                for try await status in group { #expect(status == 202) }
            }
        }
        // Warm the server's request path (and the client's pool) before the baseline.
        try await strangers(200)
        let directories = try FileManager.default.contentsOfDirectory(atPath: storage.path).count
        let descriptors = Self.descriptors(of: pid)
        let resident = Self.residentBytes(of: pid)
        try await strangers(3_000)
        #expect(try await checkout("tenant-a-key", user: "customer-a") == 202)
        #expect(try await checkout("tenant-b-key", user: "customer-b") == 202)

        #expect(try FileManager.default.contentsOfDirectory(atPath: storage.path).count == directories)
        #expect(directories == 2)
        #expect(Self.descriptors(of: pid) <= descriptors + 8, "descriptors \(descriptors) → \(Self.descriptors(of: pid))")
        #expect(Self.residentBytes(of: pid) <= resident + 16 << 20, "RSS \(resident >> 20) → \(Self.residentBytes(of: pid) >> 20) MiB")
        // The metrics (read every 5 s) count every refusal and show the two live customers.
        let deadline = Date().addingTimeInterval(30)
        var metrics = ""
        while Date() < deadline, !metrics.contains(#"metarouter_tenant_refused_total{reason="unknown_key"} 3200"#) {
            try await Task.sleep(nanoseconds: 200_000_000)
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
            metrics = String(buffer: try await response.body.collect(upTo: 1 << 20))
        }
        #expect(metrics.contains(#"metarouter_tenant_refused_total{reason="unknown_key"} 3200"#))
        #expect(metrics.contains(#"metarouter_tenant_events_dropped_total 3200"#))
        #expect(metrics.contains("metarouter_tenants_live 2"))

        let began = Date()
        process.terminate()
        while process.isRunning, Date() < began.addingTimeInterval(20) { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(Date().timeIntervalSince(began) < 10)
        if process.isRunning { process.interrupt() }
        await collector.stop()
        let events = collector.acceptedEvents
        #expect(events.compactMap { $0["writeKey"]?.stringValue }.sorted() == ["tenant-a-key", "tenant-b-key"])
    }

    /// Descriptors `pid` holds now.
    private static func descriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// `pid`'s resident set, in bytes.
    private static func residentBytes(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
