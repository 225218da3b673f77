import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MetaRouter
import MetaRouterCLIKit
import NIOConcurrencyHelpers
import Testing

@Suite struct WireValidatorTests {
    @Test func acceptsWhatTheSDKSends() {
        var event = Event(type: .track, anonymousId: "a", event: "x", properties: [:], context: ["library": [:]])
        event.writeKey = "k"
        event.sentAt = Date()
        let body = JSONText.bytes(["batch": [.object(event.jsonObject())]])
        #expect(WireValidator.problems(inBody: body).isEmpty)
    }

    @Test func namesWhatIsWrong() {
        let body: JSON = ["batch": [["type": "track", "messageId": "abc", "timestamp": "yesterday", "context": "x"]], "extra": 1]
        let problems = WireValidator.problems(inBody: JSONText.bytes(body))
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
        let viewed = events.first { $0["event"] == "Product Viewed" }
        #expect(viewed?["properties"]?["product_id"] == "SHOE-123")
        #expect(viewed?["properties"]?["productID"] == nil)
        #expect(!events.contains { $0["event"] == "Debug Ping" })
        let added = events.first { $0["event"] == "Product Added" }
        #expect(added?["properties"]?["bad_value"] == nil)
        #expect(added?["properties"]?["quantity"] == 2)
        #expect(events.last(where: { $0["type"] == "alias" })?["userId"] == "customer-42")
    }
}

@Suite struct RulesCheckerTests {
    private static let events = [
        #"{"type":"track","event":"Order Completed","userId":"u1","properties":{"productID":"A"}}"#,
        #"{"type":"track","event":"Debug Ping","userId":"u1"}"#, "not json",
    ]

    private static let text = #"""
        rule "fix" { move properties.productID to properties.product_id }
        rule "debug" {
            when match(event, "Debug *")
            drop
        }
        """#

    private static let json = #"""
        {"rules": [{"name": "fix", "actions": [{"move": {"from": "properties.productID", "to": "properties.product_id"}}]},
                   {"name": "debug", "when": "match(event, \"Debug *\")", "actions": [{"drop": true}]}]}
        """#

    private static let segment = #"""
        {"middlewareSettings": {"routingRules": [{
            "matchers": [{"type": "all"}, {"type": "fql", "ir": "[\"match\", \"event\", {\"value\": \"Debug *\"}]"}],
            "transformers": [[{"type": "map_properties", "config": {"map": {"properties.product_id": {"move": "properties.productID"}}}}],
                             [{"type": "drop"}]]}]}}
        """#

    @Test(arguments: [(RuleFormat.text, text), (RuleFormat.json, json), (RuleFormat.segment, segment)])
    func checksAllThreeFormats(_ format: RuleFormat, _ rules: String) throws {
        let ruleSet = try RuleSetLoader.load(rules)  // the format detected
        #expect(try RuleSetLoader.load(rules, format: format).name == ruleSet.name)
        let explained = NIOLockedValueBox<[String]>([])
        let output = RulesChecker.check(ruleSet: ruleSet, eventLines: Self.events, destination: nil) { line in
            explained.withLockedValue { $0.append(line) }
        }
        #expect(output.count == 3)
        #expect(try JSONText.parse(output[0])["properties"] == ["product_id": "A"])
        #expect(output[1] == "null")
        #expect(output[2] == "null")
        #expect(explained.withLockedValue { $0 }.contains { $0.hasPrefix("event 2:") && $0.hasSuffix("dropped") })
    }

    /// `metarouter plan check`: one line per event, with its verdict and violations.
    @Test func planCheckGivesAVerdictPerLine() throws {
        let plan = try TrackingPlan(json: """
            { "unplanned": "report", "events": { "Signed Up": { "properties": {
              "required": ["plan"], "properties": { "plan": { "enum": ["free", "pro"] }, "seats": { "type": "integer" } } } } } }
            """)
        let lines = PlanChecker.check(plan: plan, eventLines: [
            #"{"type": "track", "event": "Signed Up", "properties": {"plan": "pro", "seats": 3.0}}"#,
            #"{"type": "track", "event": "Signed Up", "properties": {"plan": "gold", "seats": 1.5}}"#,
            #"{"type": "track", "event": "Unknown"}"#,
            "not json",
        ])
        let results = try lines.map { try JSONText.parse($0) }
        #expect(results.map { $0["valid"] } == [true, false, false, false])
        #expect(results[0]["line"] == 1)
        #expect(results[0]["event"] == "Signed Up")
        #expect(results[1]["violations"]?.arrayValue?.compactMap { $0["rule"]?.stringValue } == ["enum", "type"])
        #expect(results[1]["violations"]?.arrayValue?.first?["path"] == "properties.plan")
        #expect(results[2]["violations"]?.arrayValue?.first?["rule"] == "unplanned")
        #expect(results[3]["violations"]?.arrayValue?.first?["rule"] == "event")
    }
}

@Suite struct RuleServerTests {
    /// `metarouter rules serve`'s server: the text with an ETag, 304 for the same ETag, the new
    /// text once it changes — what the SDK's remote rule source relies on.
    @Test func servesTheTextWithAnETagAndA304WhenUnchanged() async throws {
        let text = NIOLockedValueBox(DemoSession.remoteRules(version: 1))
        let server = RuleServer { text.withLockedValue { $0 } }
        let url = try await server.start()
        func get(_ etag: String?) async -> (status: Int, etag: String?, text: String)? {
            var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
            if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            return await withCheckedContinuation { continuation in
                URLSession.shared.dataTask(with: request) { data, response, _ in
                    let answer = (response as? HTTPURLResponse).map {
                        ($0.statusCode, $0.value(forHTTPHeaderField: "ETag"), String(decoding: data ?? Data(), as: UTF8.self))
                    }
                    continuation.resume(returning: answer)
                }.resume()
            }
        }
        let first = await get(nil)
        #expect(first?.status == 200 && first?.text == DemoSession.remoteRules(version: 1))
        let tag = try #require(first?.etag)
        #expect(await get(tag)?.status == 304)
        text.withLockedValue { $0 = DemoSession.remoteRules(version: 2) }
        let changed = await get(tag)
        #expect(changed?.status == 200 && changed?.etag != tag)
        #expect(server.requests.served == 2 && server.requests.notModified == 1)
        await server.stop()
    }
}

/// `metarouter plan codegen` and `plan status` on real files in a directory of the test's own.
@Suite struct PlanCodegenTests {
    @Test func codegenWritesTheFileAndStatusReadsTheSources() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plan-codegen-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = directory.appendingPathComponent("tracking-plan.json")
        try #"{"events": {"Order Completed": {"properties": {"required": ["order_id"], "properties": {"order_id": {"type": "string"}}}}, "Cart Emptied": {}}}"#
            .write(to: plan, atomically: true, encoding: .utf8)
        let sources = directory.appendingPathComponent("Sources/App", isDirectory: true)
        let written = try PlanCodegen.write(plan: plan, to: sources.appendingPathComponent("Generated"))
        #expect(try String(contentsOf: written, encoding: .utf8).contains("struct OrderCompleted: PlannedEvents.Event"))
        try "func checkout(_ analytics: Analytics) {\n    analytics.orderCompleted(orderId: \"o-1\")\n    analytics.track(\"Legacy Event\")\n}\n"
            .write(to: sources.appendingPathComponent("Checkout.swift"), atomically: true, encoding: .utf8)
        // A hidden build directory is not read.
        let hidden = directory.appendingPathComponent("Sources/.build", isDirectory: true)
        try FileManager.default.createDirectory(at: hidden, withIntermediateDirectories: true)
        try "analytics.cartEmptied()".write(to: hidden.appendingPathComponent("Stale.swift"), atomically: true, encoding: .utf8)
        let report = try PlanCodegen.status(plan: plan, sources: directory.appendingPathComponent("Sources"))
        #expect(report.lines == [
            "1 Swift files read", "called (1):", "  Order Completed", "never called (1):", "  Cart Emptied", "not in the plan (1):", "  Legacy Event",
        ])
        #expect(report.incomplete)
    }
}
