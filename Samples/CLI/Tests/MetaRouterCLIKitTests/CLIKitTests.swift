import Foundation
import MetaRouter
import MetaRouterCLIKit
import Testing

@Suite struct WireValidatorTests {
    @Test func acceptsWhatTheSDKSends() {
        var event = Event(type: .track, anonymousId: "a", event: "x", properties: [:], context: ["library": [:]])
        event.writeKey = "k"
        event.sentAt = Date()
        let body = JSONWriter.bytes(["batch": [.object(event.jsonObject())]])
        #expect(WireValidator.problems(inBody: body).isEmpty)
    }

    @Test func namesWhatIsWrong() {
        let body: JSON = ["batch": [["type": "track", "messageId": "abc", "timestamp": "yesterday", "context": "x"]], "extra": 1]
        let problems = WireValidator.problems(inBody: JSONWriter.bytes(body))
        #expect(problems.contains("unexpected envelope field \"extra\""))
        #expect(problems.contains("event 0: missing writeKey"))
        #expect(problems.contains("event 0: timestamp \"yesterday\" is not an ISO-8601 timestamp"))
        #expect(problems.contains("event 0: messageId \"abc\" is not <epochMillis>-<uuid>"))
        #expect(problems.contains("event 0: missing context object"))
        #expect(WireValidator.problems(inBody: Array("nope".utf8)) == ["body is not JSON"])
    }
}

@Suite struct DemoTests {
    /// The demo session over real HTTP to the embedded collector: every scripted call arrives,
    /// valid and in order, with the app-section plugin's stamp and the NaN value dropped.
    @Test func demoSessionArrivesComplete() async throws {
        let collector = LocalCollector()
        let host = try await collector.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-cli-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        struct Quiet: LogSink { func log(level: LogLevel, message: String) {} }
        await DemoSession.run(host: host, directory: directory, logSink: Quiet())
        await collector.stop()
        let events = collector.acceptedEvents
        #expect(DemoSession.matches(events))
        #expect(collector.received.allSatisfy { $0.problems.isEmpty })
        #expect(events.allSatisfy { $0["context"]?["app_section"] == "storefront" })
        let added = events.first { $0["event"] == "Product Added" }
        #expect(added?["properties"]?["bad_value"] == nil)
        #expect(added?["properties"]?["quantity"] == 2)
        #expect(events.last?["userId"] == "customer-42")
    }
}
