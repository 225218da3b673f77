import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

/// `MetaRouter.Analytics.shared` bound by `initialize(with:)` while four threads call it at full
/// speed, through the public type only, in a child process of its own (`shared` is one per
/// process), over real HTTP: every call is delivered once, each thread's in the order it made
/// them, the `identify` made before binding applies to the calls after it, and nothing is dropped.
@Suite struct SharedBindingTests {
    @Test func callsRacingTheBindingAreAllDeliveredOnceAndInOrder() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let calls = 5_000
        let lines = try await runChildProcess(["sharedbind", directory.url.path, collector.baseURL.absoluteString, String(calls)]).lines
        #expect(lines.contains("done"), "\(lines)")
        #expect(lines.contains("dropped 0"), "\(lines)")
        let events = try await collector.acceptedEvents()
        #expect(Set(events.compactMap { $0["messageId"]?.stringValue }).count == events.count, "an event arrived twice")
        for thread in 0..<4 {
            let mine = events.filter { $0["event"]?.stringValue == "Thread \(thread)" }
            #expect(mine.compactMap(\.number) == Array(0..<calls), "thread \(thread): \(mine.count) of \(calls) delivered, or out of order")
        }
        let identifies = events.filter { $0["type"]?.stringValue == "identify" }
        #expect(identifies.count == 1 && identifies.first?["traits"]?["plan"] == "pro")
        let first = events.filter { $0["event"]?.stringValue == "Thread 0" }
        #expect(first.allSatisfy { $0["userId"]?.stringValue == "bound-user" }, "the identify before binding did not reach the thread's later calls")
    }

    /// `shutdownAll` racing `initialize(with:)` for a new key, a thousand times in a child
    /// process: `shared` always ends bound to a live instance, and the registry never hands out
    /// a shut-down one.
    @Test func shutdownAllRacingInitializeLeavesSharedAndTheRegistryLive() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = try await runChildProcess(["shutdownrace", directory.url.path, collector.baseURL.absoluteString, "1000"]).lines
        #expect(lines.contains("done"), "\(lines.suffix(5))")
        #expect(lines.contains("violations 0"), "\(lines.filter { $0.hasPrefix("round") || $0.hasPrefix("violations") })")
    }

    /// Calls kept on `shared` while nothing is bound — every third round a `reset()` among
    /// them — then `initialize(with:)` racing a shutdown of the same key (`shutdownAll`, or the
    /// instance's own), 400 times in a child process: the kept calls never go to an instance
    /// that is shutting down, and a reset runs in order with them. Every kept call arrives
    /// (when not before, then when the key is initialized again) or was dropped by a reset
    /// called after it — one that clears what earlier rounds left in the log too, as a reset
    /// clears the queue.
    @Test func callsKeptBeforeAnInitializeRacingAShutdownArrive() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = try await runChildProcess(["keptrace", directory.url.path, collector.baseURL.absoluteString, "400"]).lines
        #expect(lines.contains("done"), "\(lines.suffix(5))")
        #expect(!lines.contains { $0.hasPrefix("dropped ") }, "\(lines.filter { $0.hasPrefix("dropped ") })")
        let kept = try #require(lines.first { $0.hasPrefix("kept ") }.flatMap { Int($0.dropFirst(5)) })
        let drops = lines.filter { $0.hasPrefix("reset-dropped ") }.map { $0.split(separator: " ").dropFirst().compactMap { Int($0) } }
        let madeAfterEveryReset = drops.filter { $0.count != 2 || $0[0] >= $0[1] }
        #expect(madeAfterEveryReset.isEmpty, "a reset dropped calls made after it: \(madeAfterEveryReset.prefix(10))")
        let events = try await collector.acceptedEvents()
        let numbers = Set(events.filter { $0["event"]?.stringValue == "Kept" }.compactMap(\.number))
        let missing = Set(0..<kept).subtracting(numbers).subtracting(drops.compactMap(\.first)).sorted()
        #expect(missing.isEmpty, "\(missing.count) of \(kept) kept calls neither arrived nor were dropped by a reset: \(missing.prefix(20))")
    }
}
