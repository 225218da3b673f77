import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// A captured error reaches the ingestion host over HTTP as an `Error Captured` track, with the
/// breadcrumbs before it, through the disk log like any event.
@Suite struct ErrorReportsOnTheWireTests {
    private struct LookupFailed: Error {}

    @Test func aCapturedErrorArrivesWithItsTrail() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = InitOptions(writeKey: "errors-wire-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.track("Search", properties: ["n": 1])
        analytics.captureError(LookupFailed(), handled: true, properties: ["n": 2])
        await analytics.flushAndWait()
        let events = try await collector.acceptedEvents()
        #expect(events.compactMap(\.number) == [1, 2])
        let report = try #require(events.last)
        #expect(report["event"] == "Error Captured")
        #expect(report["properties"]?["error"]?["type"]?.stringValue?.hasSuffix("LookupFailed") == true)
        #expect(report["properties"]?["breadcrumbs"]?.arrayValue?.first?["message"] == "Search")
        #expect(report["properties"]?["fingerprint"]?.stringValue?.isEmpty == false)
        await analytics.shutdown()
    }
}
