import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// What the app's lifecycle asks of delivery on iOS, driven through a manual source: the
/// background upload holds the system's background time until it resolves, and the
/// termination hand-off returns only once the queue is on disk.
@Suite struct BackgroundAndTerminationTests {
    private func launch(_ host: URL, directory: URL) -> (MetaRouterClient, ManualLifecycleSource) {
        let source = ManualLifecycleSource()
        var options = InitOptions(writeKey: "background-\(UUID().uuidString)", ingestionHost: host, trackLifecycleEvents: true)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.lifecycleSource = source
        options.logSink = RecordingLogSink()
        return (MetaRouter.Analytics.instance(for: options), source)
    }

    @Test func backgroundTimeIsHeldUntilTheUploadResolves() async throws {
        let collector = try Collector()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await collector.script([ScriptedResponse(delay: 1.0)])
        let (app, source) = launch(collector.baseURL, directory: directory.url)
        source.send(.launched(inBackground: false))
        app.track("Added To Cart")
        source.send(.willResignActive)
        source.send(.didEnterBackground)
        try await collector.waitFor { !$0.isEmpty }
        // The collector holds its answer for a second: the upload is in flight.
        #expect(source.finishingWorkInProgress == 1)
        let deadline = Date().addingTimeInterval(20)
        while source.finishingWorkInProgress > 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(source.finishingWorkInProgress == 0)
        #expect(await app.getDebugInfo().queueLength == 0)
        let names = try await collector.acceptedEvents().compactMap { $0["event"]?.stringValue }
        #expect(names.contains("Added To Cart") && names.contains("Application Backgrounded"))
        await app.shutdown()
    }

    @Test func willTerminateReturnsOnlyOnceTheQueueIsOnDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Nothing listens on port 9: every event stays queued.
        let (app, source) = launch(URL(string: "http://127.0.0.1:9")!, directory: directory.url)
        source.send(.launched(inBackground: false))
        let name = "Last Words \(UUID().uuidString)"
        app.track(name)
        source.send(.willTerminate(signal: nil))
        let events = directory.url.appendingPathComponent("events")
        let files = try FileManager.default.contentsOfDirectory(at: events, includingPropertiesForKeys: nil)
        let bytes = files.filter { $0.lastPathComponent.hasPrefix("segment-") }.compactMap { try? Data(contentsOf: $0) }
        #expect(bytes.contains { $0.range(of: Data(name.utf8)) != nil })
        await app.shutdown()
    }
}
