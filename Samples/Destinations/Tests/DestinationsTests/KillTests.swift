import Foundation
import MetaRouter
import Testing

/// Each format's destination in a child process (`destinations-tool child`) killed with
/// SIGKILL mid-delivery, and a new child on the same storage directory: every event reaches the
/// vendor — once by its dedup id, first arrivals in order — and the built-in destination too.
@Suite struct KillTests {
    /// The tool sits beside the test bundle in the build products directory.
    private static var tool: URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let urls = candidates.compactMap { $0?.appendingPathComponent("destinations-tool") }
        return urls.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? urls[0]
    }

    /// Starts a child whose output goes to `log`.
    private func child(_ vendor: Vendor, storage: URL, builtIn: URL, host: URL, from: Int, to: Int, log: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = ["child", vendor.rawValue, storage.path, builtIn.absoluteString, host.absoluteString, "\(from)", "\(to)"]
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func said(_ line: String, in log: URL) -> Bool {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").contains { $0 == line }
    }

    /// (dedup id, n) of every event a 2xx answer took, in arrival order.
    private func arrivals(_ vendor: Vendor, _ server: VendorServer) async throws -> [(id: String, n: Int64?)] {
        try await server.requests().filter { $0["status"] == 200 && $0["dropped"] != true }.flatMap(vendor.events).map(vendor.idAndNumber)
    }

    /// (messageId, n) of every event the built-in destination's host took.
    private func builtInArrivals(_ server: VendorServer) async throws -> [(id: String, n: Int64?)] {
        try await server.requests().filter { $0["status"] == 200 && $0["dropped"] != true }
            .flatMap { $0["body"]?["batch"]?.arrayValue ?? [] }
            .map { ($0["messageId"]?.stringValue ?? "", $0["properties"]?["n"]?.int64Value) }
    }

    /// Once by id, every id with one `n`, the first arrivals numbered `0..<count` in order.
    private func checkOnceInOrder(_ events: [(id: String, n: Int64?)], count: Int64, _ what: String) {
        var first: [String: Int64?] = [:], order: [Int64] = []
        for event in events {
            if let seen = first[event.id] {
                #expect(seen == event.n, "\(what): id \(event.id) came back with another event")
            } else {
                first[event.id] = event.n
                order.append(event.n ?? -1)
            }
        }
        #expect(order == Array(0..<count), "\(what): first arrivals \(order)")
    }

    @Test(arguments: Vendor.allCases) func killNineMidRunThenRestart(_ vendor: Vendor) async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.tool.path), "build destinations-tool first: \(Self.tool.path)")
        let builtIn = try VendorServer(), host = try VendorServer()
        defer { builtIn.stop(); host.stop() }
        let storage = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: storage) }
        // The vendor answers two batches (4 events each) and holds the third: the kill lands
        // while a request is in flight, however slowly this machine runs the test.
        try await host.script([VendorServer.Answer(), VendorServer.Answer()], fallback: VendorServer.Answer(delay: 30))
        let first = try child(vendor, storage: storage, builtIn: builtIn.url, host: host.url, from: 0, to: 40, log: storage.appendingPathComponent("first.log"))
        let durable = await eventually(within: 20) { said("durable 40", in: storage.appendingPathComponent("first.log")) }
        #expect(durable, "\(vendor): the first child never said its events were in the log")
        let midRun = try await eventually(within: 20) { try await host.requests().count >= 3 }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let beforeKill = try await arrivals(vendor, host).count
        #expect(midRun && beforeKill < 40, "\(vendor): the kill should land mid-run (\(beforeKill) of 40 delivered)")
        try await host.script([])

        let second = try child(vendor, storage: storage, builtIn: builtIn.url, host: host.url, from: 40, to: 50, log: storage.appendingPathComponent("second.log"))
        defer {
            kill(second.processIdentifier, SIGKILL)
            second.waitUntilExit()
        }
        let done = try await eventually(within: 40) {
            let vendorIds = try await Set(arrivals(vendor, host).map(\.id)), builtInIds = try await Set(builtInArrivals(builtIn).map(\.id))
            return vendorIds.count >= 50 && builtInIds.count >= 50
        }
        #expect(done, "\(vendor): not everything arrived after the restart")
        let vendorEvents = try await arrivals(vendor, host), builtInEvents = try await builtInArrivals(builtIn)
        checkOnceInOrder(vendorEvents, count: 50, "\(vendor)")
        checkOnceInOrder(builtInEvents, count: 50, "\(vendor): the built-in destination")
    }
}
