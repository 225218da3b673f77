#if os(Linux)
import Foundation
import MetaRouterTesting
import Testing

/// A process that forks after creating an instance, while a thread tracks at full speed — from
/// its main thread, and from a thread of Swift's cooperative pool as a server does: the child, which has none of the instance's
/// threads, finds it inert (calls dropped, every public API that waits returns at once, one log
/// line) instead of hanging; the parent carries on delivering.
@Suite struct ForkTests {
    static let waitingCalls = [
        "flushAndWait", "getDebugInfo", "getAnonymousId", "resetAndWait", "forget", "performAndWait", "shared.flushAndWait",
        "shared.getDebugInfo", "Analytics.resetAndWait", "initializeAndWait", "refreshEntitlements", "shutdown", "Analytics.shutdownAll",
    ]

    @Test(arguments: ["main", "pool"])
    func aForkedChildFindsTheInstanceInertAndTheParentCarriesOn(forkingFrom place: String) async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try await runChildProcess(["fork", directory.url.path, collector.baseURL.absoluteString, place])
        let (lines, logs) = (child.lines, child.logs)
        #expect(lines.filter { $0.hasPrefix("child waited ") } == Self.waitingCalls.map { "child waited \($0)" }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("child done inert") && $0.hasSuffix("false") }, "\(lines)")
        #expect(lines.contains("child status 0"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("parent sent ") && (Int($0.dropFirst(12)) ?? 0) >= 10 }, "\(lines)")
        #expect(logs.components(separatedBy: "sdk.forked_child").count == 2, "one line in the child: \(logs)")
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == Array(0..<10))
    }

    /// Forked from top-level code on the main actor before its first `await`: the child's main
    /// actor is served by libdispatch's pool, which the SDK's queues must not have left
    /// counting a worker that only the parent has.
    @Test func aChildForkedOnTheMainActorResumesItAfterEveryWait() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try await runChildProcess(["forkmain", directory.url.path, collector.baseURL.absoluteString])
        let lines = child.lines
        let expected = Self.waitingCalls.map { "child waited \($0)" } + ["child waited Task.detached flushAndWait"]
        #expect(lines.filter { $0.hasPrefix("child waited ") } == expected, "\(lines)")
        #expect(lines.contains("child done"), "\(lines)")
        #expect(lines.contains("child status 0"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("parent sent ") && (Int($0.dropFirst(12)) ?? 0) >= 10 }, "\(lines)")
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == Array(0..<10))
    }
}
#endif
