import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// With scrubbing on, personal data never reaches the disk log or the wire: the segment
/// files hold the tags while the host is down, and the collector receives them.
@Suite struct PIIOnTheWireTests {
    @Test func scrubbedDataNeverReachesTheDiskOrTheWire() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await collector.script(fallback: ScriptedResponse(status: 503))
        var options = InitOptions(writeKey: "pii-wire-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.scrubPII = true
        let analytics = MetaRouter.Analytics.instance(for: options)
        for index in 0..<20 {
            analytics.track("Order Completed", properties: ["n": index, "buyer": "ann.lee@example.com", "card": "4111-1111-1111-1111"])
        }
        await analytics.flushAndWait()
        await analytics.shutdown()

        let files = FileManager.default.enumerator(at: directory.url, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        let logged = files.filter { $0.lastPathComponent.hasPrefix("segment-") }.compactMap { try? Data(contentsOf: $0) }
        #expect(!logged.isEmpty)
        for bytes in logged {
            #expect(bytes.range(of: Data("ann.lee@example.com".utf8)) == nil)
            #expect(bytes.range(of: Data("4111-1111".utf8)) == nil)
        }

        try await collector.script(fallback: ScriptedResponse(status: 200))
        let again = MetaRouter.Analytics.instance(for: options)
        await again.flushAndWait()
        let events = try await collector.acceptedEvents()
        #expect(events.compactMap(\.number) == Array(0..<20))
        #expect(events.allSatisfy { $0["properties"]?["buyer"] == "<email>" && $0["properties"]?["card"] == "<card>" })
        await again.shutdown()
    }

    /// The context a call passes is the app's data too: a page URL with an email address in its
    /// query reaches neither the wire nor a signal's raw event; the SDK's own context is intact.
    @Test func theCallsContextIsScrubbedLikeProperties() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = InitOptions(writeKey: "pii-context-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.scrubPII = true
        let heard = RawEvents()
        options.signals = SignalsConfiguration(broadcasters: [heard], instrumentation: true)
        let analytics = MetaRouter.Analytics.instance(for: options)
        let trace: JSON = [
            "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "traceId": "4bf92f3577b34da6a3ce929d0e0e4736",
            "spanId": "00f067aa0ba902b7",
        ]
        let context: [String: JSON] = [
            "page": ["url": "https://shop.example/checkout?email=ann.lee@example.com&step=2", "referrer": "https://mail.example/?to=ann.lee@example.com"],
            "trace": trace,
        ]
        analytics.track("Checkout Viewed", properties: ["n": 0], options: EventOptions(context: context))
        await analytics.flushAndWait()
        let events = try await collector.acceptedEvents()
        let page = events.first?["context"]?["page"]
        #expect(page?["url"] == "https://shop.example/checkout?email=<email>&step=2", "\(String(describing: page))")
        #expect(page?["referrer"] == "https://mail.example/?to=<email>")
        #expect(events.first?["context"]?["library"]?["name"] != nil, "the SDK's own context is there")
        #expect(events.first?["context"]?["trace"] == trace, "a trace context passes unchanged")
        let deadline = Date().addingTimeInterval(60)
        while heard.events.current.isEmpty, Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(heard.events.current.count == 1)
        #expect(!heard.events.current.description.contains("ann.lee@example.com"), "\(heard.events.current)")
        await analytics.shutdown()
    }
}

/// The raw events of the instrumentation signals a broadcaster hears.
private final class RawEvents: SignalBroadcaster {
    let events = Locked<[JSON]>([])
    func added(_ signal: Signal) {
        if let raw = signal.data["rawEvent"] { events.withLock { $0.append(raw) } }
    }
    func relay(_ signals: [Signal]) {}
}
