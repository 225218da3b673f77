import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Crash capture end to end, with child processes that really crash: each crash becomes one
/// `Application Crashed` event at the next start, with the right signal and the breadcrumbs
/// left before it; the host's own handler still runs; nothing is installed unless asked for.
@Suite struct CrashCaptureTests {
    /// Runs the child to its end (or kills it after `killAfter`). The Swift runtime's own
    /// backtracer is turned off in the child: it would only make each crash slower.
    private func runChild(_ arguments: [String], killAfter: TimeInterval? = nil) async throws -> TimedChildRun {
        try await runChildTimed(arguments, killAfter: killAfter, environment: ["SWIFT_BACKTRACE": "enable=no"])
    }

    private func crashAndReport(_ kind: String, collector: Collector, directory: URL) async throws -> (events: [JSON], crash: TimedChildRun) {
        let crash = try await runChild(["crash", directory.path, collector.baseURL.absoluteString, kind])
        #expect(crash.lines.contains("armed"), "the child did not get as far as the crash")
        #expect(!crash.lines.contains("survived"))
        let report = try await runChild(["report", directory.path, collector.baseURL.absoluteString])
        #expect(report.lines.contains { $0.hasPrefix("reported") })
        let events = try await collector.acceptedEvents().filter { $0["event"]?.stringValue == "Application Crashed" }
        return (events, crash)
    }

    @Test(arguments: ["fatal", "unwrap", "overflow", "recursion", "nullwrite"])
    func eachCrashBecomesOneEventAtTheNextStart(kind: String) async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let started = Date()
        let (events, crash) = try await crashAndReport(kind, collector: collector, directory: directory.url)
        // Swift's runtime traps are SIGILL on x86-64 (ud2) and SIGTRAP on arm64 (brk).
        let expected: Set<String> = ["recursion", "nullwrite"].contains(kind) ? ["SIGSEGV", "SIGBUS"] : ["SIGILL", "SIGTRAP"]
        #expect(crash.signaled, "the crash went on to kill the process with its signal")
        try #require(events.count == 1, "\(events.count) crash events for \(kind)")
        let properties = try #require(events[0]["properties"])
        #expect(expected.contains(properties["signal"]?.stringValue ?? ""))
        #expect(properties["error"]?["type"] == properties["signal"])
        #expect(properties["handled"] == .bool(false))
        #expect(properties["fingerprint"]?.stringValue?.isEmpty == false)
        #expect((properties["frames"]?.arrayValue?.count ?? 0) > 0)
        let messages = properties["breadcrumbs"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
        #expect(messages.suffix(2) == ["before \(kind)", "Before Crash"])
        // The event's timestamp is the crash time.
        let stamp = try #require(events[0]["timestamp"]?.stringValue.flatMap(Timestamp.date(from:)))
        #expect(stamp >= started.addingTimeInterval(-1) && stamp <= Date())
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("crash").path)
        #expect(leftovers.isEmpty, "records left behind: \(leftovers)")
    }

    /// Two threads crash at once: the second waits for the first's record instead of
    /// restoring the default action mid-write; one complete report, naming a SIGSEGV.
    @Test func twoThreadsCrashingAtOnceLeaveOneCompleteReport() async throws {
        for _ in 0..<3 {
            let collector = try await Collector.start()
            defer { collector.stop() }
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let (events, crash) = try await crashAndReport("twothreads", collector: collector, directory: directory.url)
            #expect(crash.signaled)
            try #require(events.count == 1, "\(events.count) crash events")
            let properties = try #require(events[0]["properties"])
            #expect(["SIGSEGV", "SIGBUS"].contains(properties["signal"]?.stringValue ?? ""))
            #expect((properties["frames"]?.arrayValue?.count ?? 0) > 0)
            let messages = properties["breadcrumbs"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
            #expect(messages.suffix(2) == ["before twothreads", "Before Crash"])
        }
    }

    @Test func identicalCrashesShareAFingerprintAndDifferentOnesDoNot() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try await crashAndReport("nullwrite", collector: collector, directory: directory.url)
        _ = try await crashAndReport("nullwrite", collector: collector, directory: directory.url)
        let (events, _) = try await crashAndReport("recursion", collector: collector, directory: directory.url)
        try #require(events.count == 3)
        let prints = events.map { $0["properties"]?["fingerprint"]?.stringValue ?? "" }
        #expect(prints[0] == prints[1], "\(events.map { $0["properties"]?["frames"] ?? .null })")
        #expect(prints[0] != prints[2])
        #expect(Set(events.compactMap { $0["messageId"]?.stringValue }).count == 3)
    }

    @Test func aHandlerTheHostInstalledFirstIsStillCalled() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (events, crash) = try await crashAndReport("hosthandler", collector: collector, directory: directory.url)
        #expect(!crash.signaled && crash.status == 42, "the host's handler exits 42")
        #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("host-handler").path))
        #expect(events.count == 1)
    }

    @Test func nothingIsInstalledWithCaptureCrashesOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try await runChild(["off", directory.url.path, "http://127.0.0.1:9"])
        #expect(run.lines == ["unchanged"])
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("crash").path))
    }

    /// The starts after a crash are killed at random moments, some of them while they report it;
    /// the crash still arrives, and only ever under one messageId.
    @Test func startsKilledWhileReportingLoseNothingAndSendOneMessageId() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let host = collector.baseURL.absoluteString
        _ = try await runChild(["crash", directory.url.path, host, "nullwrite"])
        for _ in 0..<4 {
            _ = try await runChild(["report", directory.url.path, host], killAfter: Double.random(in: 0.05...0.6))
        }
        _ = try await runChild(["report", directory.url.path, host])
        let crashes = try await collector.acceptedEvents().filter { $0["event"]?.stringValue == "Application Crashed" }
        #expect(crashes.count >= 1)
        #expect(Set(crashes.compactMap { $0["messageId"]?.stringValue }).count == 1)
    }
}
