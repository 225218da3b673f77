import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Rule sets delivered without an app update, against a local rule server (a second collector,
/// answering GETs from its script) on the manual clock: 200 applies and stores, 304 keeps,
/// failures and bad payloads keep the last good set, the stored set and the fallback apply at
/// start before any fetch.
@Suite struct RemoteRulesTests {
    static func rules(_ version: Int, tag: String = "") -> String {
        """
        ruleset "remote" version \(version)
        rule "stamp" {
            set properties.rules = "v\(version)\(tag)"
        }
        """
    }

    private struct Instance {
        let analytics: MetaRouter.Analytics
        let clock: ManualClock
        let logs: RecordingLogSink

        /// Polls until the rules in force satisfy `condition`, for as long as the fetch may take
        /// (its transport's 30 s timeout): on a loaded machine a fetch answered at once can
        /// still take seconds to be applied.
        func waitForRules(_ condition: @escaping ((name: String, version: Int, source: RemoteRulesSource)?) -> Bool) async -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if condition(await analytics.getDebugInfo().remoteRulesInForce) { return true }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            return false
        }

        /// Polls (60 s at most: under ThreadSanitizer a large download takes seconds) until a
        /// log line with `signal` has been logged.
        func waitForLog(_ signal: String) async -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if logs.messages.contains(where: { $0.contains(signal) }) { return true }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            return false
        }
    }

    /// A rule server, an ingestion collector and a directory of the test's own.
    private struct Setting {
        let server: Collector
        let ingestion: Collector
        let directory: TemporaryDirectory

        init() async throws {
            server = try await Collector.start()
            ingestion = try await Collector.start()
            directory = try TemporaryDirectory()
        }

        func stop() {
            server.stop()
            ingestion.stop()
            directory.remove()
        }
    }

    private func start(
        ruleServer: URL, ingestion: Collector, directory: URL, fallback: URL? = nil, pinned: String? = nil
    ) -> Instance {
        let clock = ManualClock()
        let logs = RecordingLogSink()
        var options = InitOptions(writeKey: "remote-rules-\(UUID().uuidString)", ingestionHost: ingestion.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = logs
        options.clock = clock
        options.remoteRules = RemoteRulesOptions(
            url: ruleServer.appendingPathComponent("rules"), refreshInterval: 900, fallbackFile: fallback, expectedSHA256: pinned)
        return Instance(analytics: MetaRouter.Analytics.instance(for: options), clock: clock, logs: logs)
    }

    @Test func aFetchedSetAppliesIsStoredAndA304KeepsIt() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        let (server, ingestion, directory) = (setting.server, setting.ingestion, setting.directory)
        try await server.script([ScriptedResponse(status: 200, headers: ["ETag": "\"e1\""], body: Self.rules(1))], fallback: ScriptedResponse(status: 304))
        let instance = start(ruleServer: server.baseURL, ingestion: ingestion, directory: directory.url)
        #expect(await instance.waitForRules { $0?.version == 1 && $0?.source == .fetched })
        instance.analytics.track("Checked")
        await instance.analytics.flushAndWait()
        #expect(try await ingestion.acceptedEvents().first?["properties"]?["rules"] == "v1")
        // Fifteen minutes later: asked with the ETag, answered 304, the set stays.
        instance.clock.advance(by: 900)
        let requests = try await server.waitFor { $0.count == 2 }
        #expect(requests[1].headers["if-none-match"] == "\"e1\"")
        #expect(requests.allSatisfy { $0.path == "/rules" })
        #expect(await instance.waitForRules { $0?.version == 1 && $0?.source == .fetched })
        let stored = try String(contentsOf: directory.url.appendingPathComponent("rules/remote.rules"), encoding: .utf8)
        #expect(stored == Self.rules(1))
        await instance.analytics.shutdown()
    }

    @Test func badPayloadsAndFailuresKeepTheLastGoodSetAndAreLoggedOnce() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        let (server, ingestion, directory) = (setting.server, setting.ingestion, setting.directory)
        let tooDeep = "rule { when " + String(repeating: "(", count: 200) + "true" + String(repeating: ")", count: 200) + " drop }"
        try await server.script([
            ScriptedResponse(status: 200, body: Self.rules(1)),
            ScriptedResponse(status: 200, body: "rule \"broken\" { set = }"),
            ScriptedResponse(status: 200, body: "rule \"broken\" { set = }"),
            ScriptedResponse(status: 200, body: tooDeep),
            ScriptedResponse(status: 500),
            ScriptedResponse(status: 200, body: Self.rules(2)),
        ])
        let instance = start(ruleServer: server.baseURL, ingestion: ingestion, directory: directory.url)
        #expect(await instance.waitForRules { $0?.version == 1 })
        for fetch in 2...5 {
            instance.clock.advance(by: 900)
            _ = try await server.waitFor { $0.count == fetch }
            await instance.analytics.engine.settle()
            #expect(await instance.waitForRules { $0?.version == 1 })
        }
        let refusals = instance.logs.messages.filter { $0.contains("sdk.rules_refused") }
        #expect(refusals.count == 2, "the malformed payload twice, the deep one once: \(refusals)")
        #expect(refusals.contains { $0.contains("version 1") })
        // The next good set replaces it, between two events.
        instance.clock.advance(by: 900)
        #expect(await instance.waitForRules { $0?.version == 2 })
        await instance.analytics.shutdown()
    }

    /// A valid set followed by 64 MiB of newlines: the download stops at the limit (what was
    /// sent beyond it is the sockets' buffers), and the cut
    /// payload is refused like any bad one; the last good set stays.
    @Test func anOversizedPayloadIsCutAndRefusedNotApplied() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        let (server, ingestion, directory) = (setting.server, setting.ingestion, setting.directory)
        try await server.script([
            ScriptedResponse(status: 200, body: Self.rules(1)),
            ScriptedResponse(status: 200, body: Self.rules(2), padding: 64 << 20),
        ])
        let instance = start(ruleServer: server.baseURL, ingestion: ingestion, directory: directory.url)
        #expect(await instance.waitForRules { $0?.version == 1 })
        instance.clock.advance(by: 900)
        _ = try await server.waitFor { $0.count == 2 }
        #expect(await instance.waitForLog("sdk.rules_refused"))
        #expect(await instance.waitForRules { $0?.version == 1 })
        let refusals = instance.logs.messages.filter { $0.contains("sdk.rules_refused") }
        #expect(refusals.count == 1 && refusals.allSatisfy { $0.contains("the limit") }, "\(refusals)")
        let sent = try await server.paddingSent()
        #expect(sent < 16 << 20, "\(sent) bytes of padding sent")
        await instance.analytics.shutdown()
    }

    @Test func aRuleThatFailsIsLoggedOncePerSet() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        let failing = """
            ruleset "remote" version 7
            rule "nest into a number" {
                set properties.price.cents = 1
            }
            """
        try await setting.server.script(fallback: ScriptedResponse(status: 200, body: failing))
        let instance = start(ruleServer: setting.server.baseURL, ingestion: setting.ingestion, directory: setting.directory.url)
        #expect(await instance.waitForRules { $0?.version == 7 })
        for price in [10, 20, 30] { instance.analytics.track("Priced", properties: ["price": price]) }
        await instance.analytics.flushAndWait()
        // Fail open: the events go on as the rule found them.
        #expect(try await setting.ingestion.acceptedEvents().compactMap { $0["properties"]?["price"]?.int64Value } == [10, 20, 30])
        #expect(instance.logs.messages.filter { $0.contains("sdk.rule_failed") }.count == 1)
        await instance.analytics.shutdown()
    }

    @Test func aPinnedDigestRefusesAnyOtherPayload() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        let (server, ingestion, directory) = (setting.server, setting.ingestion, setting.directory)
        let pinned = Self.rules(3)
        try await server.script([ScriptedResponse(status: 200, body: Self.rules(4))], fallback: ScriptedResponse(status: 200, body: pinned))
        let instance = start(ruleServer: server.baseURL, ingestion: ingestion, directory: directory.url, pinned: sha256Hex(pinned))
        _ = try await server.waitFor { $0.count == 1 }
        await instance.analytics.engine.settle()
        #expect(await instance.waitForRules { $0 == nil })
        #expect(instance.logs.messages.contains { $0.contains("not the pinned") })
        instance.clock.advance(by: 900)
        #expect(await instance.waitForRules { $0?.version == 3 })
        await instance.analytics.shutdown()
    }

    @Test func theStoredSetAndTheFallbackApplyAtStartWithTheServerDown() async throws {
        let ingestion = try await Collector.start()
        defer { ingestion.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fallback = directory.url.appendingPathComponent("bundled.rules")
        try Data(Self.rules(0, tag: "-bundled").utf8).write(to: fallback)
        // Nothing fetched yet, nothing listening: the bundled file.
        let down = URL(string: "http://127.0.0.1:9")!
        let first = start(ruleServer: down, ingestion: ingestion, directory: directory.url, fallback: fallback)
        #expect(await first.waitForRules { $0?.version == 0 && $0?.source == .fallback })
        await first.analytics.shutdown()
        // One run fetches version 5 and stores it …
        let server = try await Collector.start()
        try await server.script(fallback: ScriptedResponse(status: 200, body: Self.rules(5)))
        let second = start(ruleServer: server.baseURL, ingestion: ingestion, directory: directory.url, fallback: fallback)
        #expect(await second.waitForRules { $0?.version == 5 && $0?.source == .fetched })
        await second.analytics.shutdown()
        server.stop()
        // … and the next start applies it before any fetch, with the server gone.
        let third = start(ruleServer: down, ingestion: ingestion, directory: directory.url, fallback: fallback)
        third.analytics.track("After Restart")
        await third.analytics.flushAndWait()
        #expect(await third.waitForRules { $0?.version == 5 && $0?.source == .stored })
        #expect(try await ingestion.acceptedEvents().last?["properties"]?["rules"] == "v5")
        await third.analytics.shutdown()
    }
}

/// The SHA-256 of `text` as lowercase hex, computed with the command-line tool (an independent
/// implementation).
private func sha256Hex(_ text: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try? process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try? input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}
