import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Kills a child process with SIGKILL at random moments while it tracks against a collector
/// that is failing, restarts it with the collector up, and checks that every event the child
/// had tracked more than one drain cycle before the kill arrives — duplicates only with the
/// same messageId.
@Suite(.serialized) struct CrashTests {
    private static var childURL: URL { CrashChildLocator.url }

    /// Runs the child; returns its stdout lines once it exits (or once `killAfter` passes and
    /// it has been killed), and the monotonic time of the kill.
    private func runChild(_ arguments: [String], killAfter: TimeInterval? = nil) async throws -> [String] {
        try await runChildTimed(arguments, killAfter: killAfter).lines
    }

    /// A producer at 2,000 events/s is killed at random moments, twelve times, while the host
    /// is down (503s, or answers that never come in time) or up with requests in flight.
    /// Nothing tracked 100 ms or more before a kill is lost, and every duplicate carries the
    /// same messageId and the same Idempotency-Key as its first delivery.
    ///
    /// It brings its own load, so it runs on its own (`.ci/run` runs it in a step of its own
    /// with `METAROUTER_LOAD_CRASH=1`): beside the whole parallel suite on two cores, a debug
    /// build's executor can be starved for longer than the 100 ms it asserts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["METAROUTER_LOAD_CRASH"] != nil))
    func nothingTrackedBeforeAKillUnderLoadIsLost() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var expected: [Int] = []
        var tracked = 0
        var random = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let first = round * 1_000_000
            switch round % 3 {
            case 0: try await collector.script(fallback: ScriptedResponse(status: 503))
            case 1: try await collector.script(fallback: ScriptedResponse(status: 200, delay: 0.05))
            default: try await collector.script(fallback: ScriptedResponse(status: 200, delay: 5))
            }
            let run = try await runChildTimed(
                ["load", directory.url.path, collector.baseURL.absoluteString, String(first)],
                killAfter: Double.random(in: 0.3...1.2, using: &random))
            let (lines, killedAt) = (run.lines, run.killedAt)
            let stamped = lines.compactMap { line -> (index: Int, at: UInt64)? in
                let parts = line.split(separator: " ")
                guard parts.count == 2, let index = Int(parts[0]), let at = UInt64(parts[1]) else { return nil }
                return (index, at)
            }
            tracked += (stamped.last?.index).map { $0 - first + 1 } ?? 0
            if let lastSafe = stamped.last(where: { $0.at + 100_000_000 <= killedAt }) {
                expected += Array(first...lastSafe.index)
            }
            try await collector.script(fallback: ScriptedResponse(status: 200))
            let drained = try await runChild(["drain", directory.url.path, collector.baseURL.absoluteString])
            #expect(drained.last?.hasPrefix("drained") == true, "round \(round): \(drained)")
        }
        let requests = try await collector.requests().filter { $0.status == 200 && !$0.dropped }
        var deliveries: [Int: Set<String>] = [:]
        var keys: [Int: Set<String>] = [:]
        for request in requests {
            for event in request.events {
                guard let number = event.number, let id = event["messageId"]?.stringValue else { continue }
                deliveries[number, default: []].insert(id)
                keys[number, default: []].insert(request.headers["idempotency-key"] ?? "")
            }
        }
        #expect(tracked >= 12 * 500, "the producer tracked too little to test anything: \(tracked)")
        let missing = expected.filter { deliveries[$0] == nil }
        let missingByRound = Dictionary(grouping: missing) { $0 / 1_000_000 }.mapValues { "\($0.count) from \($0.min() ?? 0 % 1_000_000)" }
        #expect(missing.count == 0, "\(missing.count) of \(expected.count) events tracked ≥ 100 ms before a kill never arrived, by round: \(missingByRound)")
        #expect(deliveries.values.allSatisfy { $0.count == 1 }, "a duplicate arrived with a different messageId")
        #expect(keys.values.allSatisfy { $0.count == 1 }, "a duplicate arrived under a different Idempotency-Key")
    }

    @Test func everyDurableEventSurvivesSIGKILL() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.childURL.path), "build MetaRouterCrashChild first")
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var expected: [Int] = []
        var random = SystemRandomNumberGenerator()
        for round in 0..<10 {
            // Each round numbers its events from round × 1,000,000, so rounds never overlap.
            let first = round * 1_000_000
            try await collector.script(fallback: ScriptedResponse(status: 503))
            let lines = try await runChild(
                ["track", directory.url.path, collector.baseURL.absoluteString, String(first)],
                killAfter: Double.random(in: 0.15...0.6, using: &random))
            if let durable = lines.compactMap({ $0.hasPrefix("durable ") ? Int($0.dropFirst(8)) : nil }).max() {
                expected += Array(first...durable)
            }

            try await collector.script(fallback: ScriptedResponse(status: 200))
            let drained = try await runChild(["drain", directory.url.path, collector.baseURL.absoluteString])
            #expect(drained.last?.hasPrefix("drained") == true, "round \(round): \(drained)")
        }
        let accepted = try await collector.acceptedEvents()
        var messageIds: [Int: Set<String>] = [:]
        for event in accepted {
            guard let number = event.number, let id = event["messageId"]?.stringValue else { continue }
            messageIds[number, default: []].insert(id)
        }
        #expect(expected.count > 100, "the child reported too few durable events to test anything")
        let missing = expected.filter { messageIds[$0] == nil }
        #expect(missing.count == 0, "\(missing.count) durable events never arrived, e.g. \(missing.prefix(5))")
        #expect(messageIds.values.allSatisfy { $0.count == 1 }, "a duplicate arrived with a different messageId")
    }
}

/// Finds the `MetaRouterCrashChild` executable, which sits beside the test bundle in the build
/// products directory.
enum CrashChildLocator {
    static var url: URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let urls = candidates.compactMap { $0?.appendingPathComponent("MetaRouterCrashChild") }
        return urls.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? urls[0]
    }
}
