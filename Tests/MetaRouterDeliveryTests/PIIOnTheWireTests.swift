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
        let analytics = MetaRouter.Analytics.concreteInstance(for: options)
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
        let again = MetaRouter.Analytics.concreteInstance(for: options)
        await again.flushAndWait()
        let events = try await collector.acceptedEvents()
        #expect(events.compactMap(\.number) == Array(0..<20))
        #expect(events.allSatisfy { $0["properties"]?["buyer"] == "<email>" && $0["properties"]?["card"] == "<card>" })
        await again.shutdown()
    }
}
