import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Random interleavings, seeded, of what a deployment goes through: three tenants tracking in
/// bursts, tenants shut down and made again (evicted), `shared` used before `initialize(with:)`
/// binds it, the host answering, failing (500), dropping connections or failing a share of
/// requests, and the process killed with SIGKILL and restarted on the same storage. At the end
/// the host answers and a last process delivers what is left. Invariants: every event that was
/// through the pipeline before a kill is delivered; an event delivered twice went both times
/// under one `Idempotency-Key`; every instance made had its queue on disk; nothing is left.
///
/// About 60 s by default (`.ci/run` runs it with the suite); `METAROUTER_CHAOS_SECONDS` runs
/// it longer and `METAROUTER_CHAOS_SEED` replays a seed, which every failure prints. Seeds
/// that ever failed are kept in ``fixedSeeds`` and walked beside the new one.
@Suite struct ChaosTests {
    /// 1795838723653: a batch sent again under a new key after two restarts (the segment
    /// holding its key record was deleted as dead). 1795859669994: batches re-keyed after a
    /// kill -9 while a commit deleted emptied segments before writing its records.
    static let fixedSeeds: [UInt64] = [1_795_838_723_653, 1_795_859_669_994]

    private func walk(seed: UInt64, seconds: TimeInterval) async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var random = SeededRandom(seed: seed)
        var durable = Set<Int>()
        var withoutDisk: [String] = []
        // The walk's length is time, and at least the events it needs to test anything: on a
        // busy machine a child may be killed before it has said what it made durable.
        let end = Date().addingTimeInterval(seconds)
        let latest = end.addingTimeInterval(120)
        var run = 0
        while Date() < end || (durable.count <= 100 && Date() < latest) {
            switch random.next(4) {
            case 0: try await collector.script()
            case 1: try await collector.script(fallback: ScriptedResponse(status: 500))
            case 2: try await collector.script(fallback: ScriptedResponse(drop: true))
            default: try await collector.script(failRate: 0.3, failStatus: 500, seed: random.next(1_000))
            }
            // The kill's moment is the random part of the walk, not an ordering.
            let lines = try await runChildTimed(
                ["chaos", directory.url.path, collector.baseURL.absoluteString, String(seed &+ UInt64(run)), String(run * 1_000_000)],
                killAfter: 0.3 + Double(random.next(30)) / 10).lines
            for line in lines {
                let parts = line.split(separator: " ")
                if parts.first == "durable", parts.count == 3, let first = Int(parts[1]), let last = Int(parts[2]), first <= last {
                    durable.formUnion(first...last)
                }
                if parts.first == "disk", parts.last != "true" { withoutDisk.append(line) }
            }
            run += 1
        }
        try await collector.script()
        let drained = try await runChildProcess(["chaosdrain", directory.url.path, collector.baseURL.absoluteString]).lines
        let requests = try await collector.requests().filter { (200..<300).contains($0.status) && !$0.dropped }
        var keys: [String: Set<String>] = [:]
        var delivered = Set<Int>()
        for request in requests {
            for event in request.events {
                if let number = event.number { delivered.insert(number) }
                keys[event["messageId"]?.stringValue ?? "", default: []].insert(request.headers["idempotency-key"] ?? "")
            }
        }
        let missing = durable.subtracting(delivered).sorted()
        print("chaos: seed \(seed): \(run) runs killed, \(durable.count) durable events, \(delivered.count) delivered, \(requests.count) batches accepted")
        let rekeyed = keys.filter { $0.value.count > 1 }
        #expect(durable.count > 100, "seed \(seed): too few events to test anything (\(run) runs)")
        #expect(missing.isEmpty, "seed \(seed): \(missing.count) of \(durable.count) durable events never arrived, e.g. \(missing.prefix(5))")
        #expect(rekeyed.isEmpty, "seed \(seed): \(rekeyed.count) events delivered under two keys, e.g. \(rekeyed.first.map { "\($0)" } ?? "")")
        #expect(withoutDisk.isEmpty, "seed \(seed): instances without a disk log: \(withoutDisk.prefix(3))")
        #expect(drained.filter { $0.hasPrefix("left ") } == (0..<3).map { "left chaos-\($0) 0" }, "seed \(seed): \(drained)")
    }

    /// Each seed that ever failed walks for 10 s; a new seed walks for 60 s (or
    /// `METAROUTER_CHAOS_SECONDS`). The walks are independent (a collector and a directory of
    /// their own), so they run side by side.
    @Test(arguments: fixedSeeds.map(Optional.some) + [nil])
    func everyDurableEventIsDeliveredThroughRandomInterleavings(fixedSeed: UInt64?) async throws {
        if let fixedSeed { return try await walk(seed: fixedSeed, seconds: 10) }
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["METAROUTER_CHAOS_SECONDS"].flatMap(Double.init) ?? 60
        let seed = environment["METAROUTER_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
        print("chaos: seed \(seed), \(seconds) s (METAROUTER_CHAOS_SEED=\(seed) replays it)")
        try await walk(seed: seed, seconds: seconds)
    }
}
