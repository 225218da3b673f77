import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Every kind of event the SDK sends, as the collector receives it over loopback HTTP, checked
/// against the Segment Spec (`Support/SegmentSpec.swift`): each call of the Spec, the
/// lifecycle, session, consent, advertising and error-report shapes, per-call context and
/// `integrations`. Nothing breaks the Spec; the fields it does not define are exactly the
/// choices `Docs/WireFormat.md` lists, each named there.
@Suite struct WireSpecTests {
    /// The fields the SDK sends that the Spec does not define, as `Docs/WireFormat.md` lists them.
    static let documentedChoices: Set<String> = [
        "writeKey", "groupId", "context.sessionId", "context.sessionStart", "context.consent", "context.os.distribution",
    ]

    @Test func everyEventTheSDKSendsKeepsToTheSegmentSpec() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = InitOptions(
            writeKey: "wire-spec-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600,
            trackLifecycleEvents: true)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        let lifecycle = ManualLifecycleSource()
        options.lifecycleSource = lifecycle
        let analytics = MetaRouter.Analytics.instance(for: options)
        await analytics.engine.settle()
        lifecycle.send(.launched(inBackground: false))
        await analytics.engine.settle()
        await analytics.engine.settle()

        analytics.setAdvertisingId("123E4567-E89B-12D3-A456-426614174000")
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": true, "Marketing": false]))
        analytics.track("Product Viewed", properties: ["sku": "SHOE-1", "price": 19.99, "tags": ["new"]])
        analytics.track(
            "Checkout Started", properties: ["total": 42],
            options: EventOptions(context: ["ip": "8.8.8.8", "campaign": ["name": "autumn"]], integrations: ["All": true, "Mixpanel": false]))
        analytics.identify("user-7", traits: ["email": "ann@example.com", "plan": "pro"])
        analytics.group("org-1", traits: ["name": "Initech", "employees": 329])
        analytics.screen("Home", properties: ["tab": "feed"])
        analytics.page("Pricing", properties: ["path": "/pricing", "url": "https://example.com/pricing", "title": "Pricing"])
        analytics.captureError(SpecProbeError.declined, properties: ["step": "payment"])
        analytics.alias("user-8")
        lifecycle.send(.didEnterBackground)
        await analytics.engine.settle()
        await analytics.shutdown()
        let requests = try await collector.requests()

        let events = requests.filter { (200..<300).contains($0.status) }.flatMap(\.events)
        #expect(Set(events.compactMap { $0["type"]?.stringValue }) == ["track", "identify", "group", "screen", "page", "alias"])
        for name in ["Application Installed", "Application Opened", "Application Backgrounded", "Error Captured"] {
            #expect(events.contains { $0["event"]?.stringValue == name }, "no \(name)")
        }
        var outside: Set<String> = []
        for event in events {
            let violations = SegmentSpec.violations(of: event)
            #expect(violations.isEmpty, "\(JSONWriter.string(event)): \(violations)")
            outside.formUnion(SegmentSpec.outsideTheSpec(event))
        }
        #expect(outside == Self.documentedChoices)
    }

    @Test func theWireFormatDocNamesEveryChoice() throws {
        let doc = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Docs/WireFormat.md"), encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "## Against the Segment Spec").dropFirst().first)
        for choice in Self.documentedChoices {
            #expect(section.contains("`\(choice)`"), "Docs/WireFormat.md does not name \(choice)")
        }
    }

    @Test func timestampsAreCheckedAsTheSpecWritesThem() {
        #expect(SegmentSpec.isISO8601("2015-12-10T04:08:31.909Z"))
        #expect(SegmentSpec.isISO8601("2015-12-10T04:08:31+02:00"))
        #expect(!SegmentSpec.isISO8601("2015-12-10 04:08:31"))
        #expect(!SegmentSpec.isISO8601("2015-13-10T04:08:31Z"))
        #expect(!SegmentSpec.isISO8601("1449720511"))
        let broken: JSON = ["type": "group", "messageId": "m", "timestamp": "yesterday", "sentAt": "2015-12-10T04:08:31Z"]
        #expect(SegmentSpec.violations(of: broken).count == 3)  // no identity, timestamp, no groupId
    }
}

private enum SpecProbeError: Error { case declined }
