#if os(Linux)
import Foundation
import MetaRouterTesting
import Testing

/// A process that forks after creating an instance: the child, which has none of the
/// instance's threads, finds it inert (calls dropped, waiting calls return at once, one log
/// line) instead of hanging; the parent carries on delivering.
@Suite struct ForkTests {
    @Test func aForkedChildFindsTheInstanceInertAndTheParentCarriesOn() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try await runChildProcess(["fork", directory.url.path, collector.baseURL.absoluteString])
        let (lines, logs) = (child.lines, child.logs)
        #expect(lines.contains { $0.hasPrefix("child done inert") && $0.hasSuffix("false") }, "\(lines)")
        #expect(lines.contains("child status 0"), "\(lines)")
        #expect(lines.contains("parent sent 10"), "\(lines)")
        #expect(logs.components(separatedBy: "sdk.forked_child").count == 2, "one line in the child: \(logs)")
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == Array(0..<10))
    }
}
#endif
