import Destinations
import Foundation
import MetaRouter
import Testing

/// Each format end to end on the durable engine, through the public `Analytics`, beside the
/// built-in MetaRouter destination: real HTTP to loopback collectors, real disk logs.
@Suite struct FaultTests {
    /// An instance whose built-in destination posts to `builtIn` and whose `vendor`
    /// destination posts to `host`, on its own storage directory.
    private func instance(_ vendor: Vendor, builtIn: URL, host: URL, storage: URL, writeKey: String) -> Analytics {
        var options = InitOptions(writeKey: writeKey, ingestionHost: builtIn.absoluteString, flushIntervalSeconds: 1)
        options.storageDirectory = storage
        var engine = DurableDestinationOptions()
        engine.maxBatchEvents = 4
        engine.flushIntervalSeconds = 1
        let format = vendor.format(host: host), settings = engine
        options.plugins = { [DurableDestination(key: vendor.key, format: format, options: settings)] }
        return Analytics.instance(for: options)
    }

    /// The events the host took (2xx, connection kept), in arrival order: dedup id and `n`.
    private func accepted(_ vendor: Vendor, _ requests: [JSON]) -> [(id: String, n: Int64?)] {
        requests.filter { ($0["status"]?.int64Value ?? 0) / 100 == 2 && $0["dropped"] != true }.flatMap(vendor.events).map(vendor.idAndNumber)
    }

    /// The `n` of every event the built-in destination's host took, in order.
    private func builtInNumbers(_ server: VendorServer) async throws -> [Int64] {
        try await server.requests().filter { $0["status"] == 200 && $0["dropped"] != true }
            .flatMap { $0["body"]?["batch"]?.arrayValue ?? [] }.compactMap { $0["properties"]?["n"]?.int64Value }
    }

    /// 500, 429 with and without `Retry-After`, 413 twice (4 → 2 → 1 event), a dropped
    /// connection, then the host down (connections refused) while 8 more events are tracked,
    /// and back on the same port: the vendor gets all 32 events exactly once by its dedup id,
    /// in order; the dropped request's ids are among them; the built-in destination also
    /// delivers all 32.
    @Test(arguments: Vendor.allCases) func everyFaultThenEverythingOnceInOrder(_ vendor: Vendor) async throws {
        let builtIn = try VendorServer(), host = try VendorServer()
        defer { builtIn.stop() }
        let storage = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: storage) }
        typealias A = VendorServer.Answer
        try await host.script([
            A(status: 500), A(), A(status: 429, headers: ["Retry-After": "1"]), A(), A(status: 429), A(),
            A(status: 413), A(status: 413), A(), A(drop: true), A(),
        ])
        let analytics = instance(vendor, builtIn: builtIn.url, host: host.url, storage: storage, writeKey: "faults-\(vendor)-\(UUID())")
        for n in 0..<24 { analytics.track("Step", properties: ["n": n]) }
        let firstPhase = try await eventually { try await Set(accepted(vendor, host.requests()).map(\.id)).count >= 24 }
        #expect(firstPhase, "\(vendor): the first 24 events did not all arrive")

        // The host goes down: its port refuses connections while 8 more events wait.
        let before = try await host.requests()
        let port = host.port
        host.stop()
        let retries = await analytics.getDebugInfo().destinations[vendor.key]?.retries ?? 0
        for n in 24..<32 { analytics.track("Step", properties: ["n": n]) }
        _ = await eventually(within: 15) { await analytics.getDebugInfo().destinations[vendor.key]?.retries ?? 0 >= retries + 2 }
        let back = try VendorServer(port: port)
        defer { back.stop() }
        let done = await eventually(within: 40) {
            await analytics.flushAndWait()
            let info = await analytics.getDebugInfo()
            return info.destinations[vendor.key]?.sent == 32 && info.stats.sent == 32
        }
        let info = await analytics.getDebugInfo()
        await analytics.shutdown()
        #expect(done, "\(vendor): \(info)")

        let requests = try await before + back.requests()
        let events = accepted(vendor, requests)
        #expect(events.compactMap(\.n) == Array(0..<32), "\(vendor): \(events.compactMap(\.n))")
        #expect(Set(events.map(\.id)).count == 32 && events.allSatisfy { !$0.id.isEmpty }, "\(vendor): every dedup id once")
        #expect(requests.allSatisfy { $0["path"]?.stringValue == vendor.path })
        let tooLarge = requests.filter { $0["status"] == 413 }.map { vendor.events($0).count }
        #expect(tooLarge == [4, 2], "\(vendor): 413 halves the batch: \(tooLarge)")
        if let after = requests.firstIndex(where: { $0["status"] == 413 }).map({ $0 + 2 }), after < requests.count {
            #expect(vendor.events(requests[after]).count == 1, "\(vendor): split down to a single event")
        }
        let droppedIds = requests.filter { $0["dropped"] == true }.flatMap(vendor.events).map { vendor.idAndNumber($0).id }
        #expect(!droppedIds.isEmpty && Set(droppedIds).isSubset(of: Set(events.map(\.id))), "\(vendor): a dropped request is sent again under the same ids")
        #expect(try await builtInNumbers(builtIn) == Array(0..<32), "\(vendor): the built-in destination")
    }

    /// What a destination holds while its host fails survives the instance: a new instance on
    /// the same storage directory delivers it once, in order, under the same dedup ids.
    @Test(arguments: Vendor.allCases) func whatIsQueuedSurvivesARestart(_ vendor: Vendor) async throws {
        let builtIn = try VendorServer(), host = try VendorServer()
        defer { builtIn.stop(); host.stop() }
        let storage = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: storage) }
        let writeKey = "restart-\(vendor)-\(UUID())"
        try await host.script([], fallback: VendorServer.Answer(status: 503))
        let first = instance(vendor, builtIn: builtIn.url, host: host.url, storage: storage, writeKey: writeKey)
        for n in 0..<10 { first.track("Step", properties: ["n": n]) }
        _ = await eventually { await first.getDebugInfo().destinations[vendor.key]?.retries ?? 0 >= 1 }
        await first.shutdown(timeout: 1)
        let failedIds = try await host.requests().flatMap(vendor.events).map { vendor.idAndNumber($0).id }

        try await host.script([])
        let second = instance(vendor, builtIn: builtIn.url, host: host.url, storage: storage, writeKey: writeKey)
        let done = await eventually {
            await second.flushAndWait()
            return await second.getDebugInfo().destinations[vendor.key]?.sent == 10
        }
        await second.shutdown()
        #expect(done)
        let events = accepted(vendor, try await host.requests())
        #expect(events.compactMap(\.n) == Array(0..<10), "\(vendor): \(events.compactMap(\.n))")
        #expect(Set(events.map(\.id)).count == 10)
        #expect(!failedIds.isEmpty && Set(failedIds).isSubset(of: Set(events.map(\.id))), "\(vendor): the same dedup ids after the restart")
        #expect(try await builtInNumbers(builtIn) == Array(0..<10))
    }
}
