import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// What the app's lifecycle asks of delivery on iOS, driven through a manual source: the
/// background upload holds the system's background time until it resolves, and the
/// termination hand-off returns only once the queue is on disk.
@Suite struct BackgroundAndTerminationTests {
    private func launch(_ host: URL, directory: URL, transport: (any HTTPTransport)? = nil) -> (MetaRouter.Analytics, ManualLifecycleSource) {
        let source = ManualLifecycleSource()
        // No timer flush: the only upload is the one the background transition starts.
        var options = InitOptions(
            writeKey: "background-\(UUID().uuidString)", ingestionHost: host.absoluteString, flushIntervalSeconds: 3600, trackLifecycleEvents: true)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.lifecycleSource = source
        options.logSink = RecordingLogSink()
        options.transport = transport
        return (MetaRouter.Analytics.instance(for: options), source)
    }

    @Test func backgroundTimeIsHeldUntilTheUploadResolves() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let transport = GatedTransport()
        let (app, source) = launch(collector.baseURL, directory: directory.url, transport: transport)
        source.send(.launched(inBackground: false))
        app.track("Added To Cart")
        source.send(.willResignActive)
        source.send(.didEnterBackground)
        try await collector.waitFor { requests in
            requests.contains { $0.events.contains { $0["event"]?.stringValue == "Application Backgrounded" } }
        }
        // The collector has answered; the transport holds the answer: the upload is in flight.
        #expect(source.finishingWorkInProgress == 1)
        transport.release()
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
        app.track("Warm Up")
        // Once the plugin listens (transitions sent before are replayed on the executor,
        // where the hand-off cannot wait), willTerminate returns only after the fsync.
        await app.engine.settle()
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
