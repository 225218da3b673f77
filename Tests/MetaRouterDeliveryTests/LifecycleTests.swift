import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Each scenario of the seed's lifecycle section, end to end: a manual source drives the
/// plugin, delivery sends to the collector, and the test reads what the collector received.
@Suite struct LifecycleTests {
    /// One app launch: a fresh instance on the device's shared store, ready to be driven.
    private func launch(
        _ collector: Collector, store: InMemoryKeyValueStore, version: String, build: String, lifecycle: Bool = true
    ) async -> (MetaRouter.Analytics, ManualLifecycleSource) {
        let source = ManualLifecycleSource()
        var options = InitOptions(
            writeKey: "lifecycle-\(UUID().uuidString)", ingestionHost: collector.baseURL.absoluteString, maxDiskEvents: 0,
            trackLifecycleEvents: lifecycle)
        options.application = ApplicationInfo(name: "LifecycleTests", version: version, build: build)
        options.keyValueStore = store
        options.lifecycleSource = source
        options.logSink = RecordingLogSink()
        let app = MetaRouter.Analytics.instance(for: options)
        await app.engine.settle()
        return (app, source)
    }

    private func applicationEvents(_ collector: Collector) async throws -> [(String, [String: JSON])] {
        try await collector.acceptedEvents().compactMap { event in
            guard let name = event["event"]?.stringValue, name.hasPrefix("Application") else { return nil }
            return (name, event["properties"]?.objectValue ?? [:])
        }
    }

    /// Lets the lifecycle's events reach the queue, then delivers until the queue is empty
    /// (a request that fails under load is retried after its delay).
    private func settleAndFlush(_ client: MetaRouter.Analytics) async {
        await client.engine.settle()
        await client.engine.settle()
        let deadline = Date().addingTimeInterval(20)
        repeat {
            await client.flushAndWait()
            if await client.getDebugInfo().queueLength == 0 { return }
            try? await Task.sleep(nanoseconds: 50_000_000)
        } while Date() < deadline
    }

    @Test func installUpdateAndUnchangedRelaunch() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let device = InMemoryKeyValueStore()
        for (version, build) in [("1.0", "10"), ("2.0", "20"), ("2.0", "20")] {
            let (app, source) = await launch(collector, store: device, version: version, build: build)
            source.send(.launched(inBackground: false))
            await settleAndFlush(app)
            await app.shutdown()
        }
        let events = try await applicationEvents(collector)
        #expect(events.map(\.0) == [
            "Application Installed", "Application Opened", "Application Updated", "Application Opened", "Application Opened",
        ])
        #expect(events[0].1 == ["version": "1.0", "build": "10"])
        #expect(events[2].1 == ["version": "2.0", "build": "20", "previous_version": "1.0", "previous_build": "10"])
        #expect(events[1].1["from_background"] == false)
        #expect(device.string(forKey: LifecyclePlugin.versionKey) == "2.0")
        #expect(device.string(forKey: LifecyclePlugin.buildKey) == "20")
    }

    @Test func upgradeFromBeforeLifecycleAndResetKeepsTheRelease() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let device = InMemoryKeyValueStore()
        do {
            let (old, _) = await launch(collector, store: device, version: "1.0", build: "10", lifecycle: false)
            old.track("Used Before")
            await settleAndFlush(old)
            await old.shutdown()
        }
        let (app, source) = await launch(collector, store: device, version: "2.0", build: "20")
        source.send(.launched(inBackground: false))
        await settleAndFlush(app)
        await app.resetAndWait()
        let events = try await applicationEvents(collector)
        #expect(events.first?.0 == "Application Updated")
        #expect(events.first?.1["previous_version"] == "unknown")
        #expect(device.string(forKey: LifecyclePlugin.versionKey) == "2.0")
        await app.shutdown()
    }

    @Test func backgroundLaunchActivationBlipsAndBackgrounding() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let (app, source) = await launch(collector, store: InMemoryKeyValueStore(), version: "1.0", build: "1")
        source.send(.launched(inBackground: true))
        source.send(.didBecomeActive)
        source.send(.willResignActive)
        source.send(.didBecomeActive)
        app.track("Work")
        source.send(.willResignActive)
        source.send(.didEnterBackground)
        // No explicit flush: backgrounding sends what is queued, the Backgrounded event included.
        // The bound only stops a broken run: under ThreadSanitizer beside other suites a first
        // request can time out (15 s) and be retried before it lands.
        let received = try await collector.waitFor(timeout: 90) { requests in
            requests.flatMap(\.events).contains { $0["event"] == "Application Backgrounded" }
        }
        let names = received.flatMap(\.events).compactMap { $0["event"]?.stringValue }
        #expect(names == ["Application Installed", "Application Opened", "Work", "Application Backgrounded"])
        source.send(.didBecomeActive)
        await settleAndFlush(app)
        let events = try await applicationEvents(collector)
        #expect(events.last?.0 == "Application Opened")
        #expect(events.last?.1["from_background"] == true)
        await app.shutdown()
    }

    @Test func deepLinksOnColdLaunchAndOnResume() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let (app, source) = await launch(collector, store: InMemoryKeyValueStore(), version: "1.0", build: "1")
        app.recordOpenedURL(URL(string: "myapp://promo/1")!, sourceApplication: "com.apple.mobilesafari")
        app.recordOpenedURL(URL(string: "myapp://promo/2")!, sourceApplication: "com.apple.mobilesafari")
        source.send(.launched(inBackground: false))
        source.send(.didEnterBackground)
        app.recordOpenedURL(URL(string: "https://example.com/item/9")!, sourceApplication: nil)
        source.send(.didBecomeActive)
        source.send(.didEnterBackground)
        source.send(.didBecomeActive)
        await settleAndFlush(app)
        let opened = try await applicationEvents(collector).filter { $0.0 == "Application Opened" }.map(\.1)
        try #require(opened.count == 3)
        #expect(opened[0]["url"] == "myapp://promo/2")
        #expect(opened[0]["referring_application"] == "com.apple.mobilesafari")
        #expect(opened[1]["url"] == "https://example.com/item/9")
        #expect(opened[1]["referring_application"] == nil)
        #expect(opened[2]["url"] == nil)
        await app.shutdown()
    }

    @Test func lifecycleOffEmitsNothingAndRecordOpenedURLWarns() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let logs = RecordingLogSink()
        var options = InitOptions(writeKey: "lifecycle-off-\(UUID().uuidString)", ingestionHost: collector.baseURL.absoluteString, maxDiskEvents: 0)
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = logs
        let app = MetaRouter.Analytics.instance(for: options)
        app.recordOpenedURL(URL(string: "myapp://x")!, sourceApplication: nil)
        app.track("Only Event")
        await settleAndFlush(app)
        #expect(try await applicationEvents(collector).isEmpty)
        #expect(logs.messages(atLeast: .warning).contains { $0.contains("lifecycle tracking is off") })
        await app.shutdown()
    }

    /// A server child process with two instances, each with events queued, receives SIGTERM:
    /// both deliver all of theirs, then the signal ends the process.
    @Test func sigtermDrainsTheQueueBeforeExit() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = Process()
        process.executableURL = CrashChildLocator.url
        // Fewer than the count policy's 20, and an hour's flush interval: they stay queued.
        process.arguments = ["serve", directory.url.path, collector.baseURL.absoluteString, "15"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        let line = try await offThePool {
            var line = Data()
            while let byte = try reader.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
            return line
        }
        #expect(String(decoding: line, as: UTF8.self) == "ready 15")
        #expect(try await collector.requests().isEmpty)
        process.terminate()
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGTERM)
        let numbers = try await collector.acceptedEvents().compactMap(\.number).sorted()
        #expect(numbers == Array(0..<15) + Array(1_000..<1_015))
    }
}

/// A store whose reads wait for the test to open a gate, and record whether the caller's
/// `instance(for:)` had already returned by then.
private final class GatedStore: KeyValueStore, @unchecked Sendable {  // every field is a lock, a semaphore or immutable
    let gate = DispatchSemaphore(value: 0)
    let returned = Locked(false)
    let readBeforeReturn = Locked(false)
    private let inner = InMemoryKeyValueStore()

    func string(forKey key: String) -> String? {
        if gate.wait(timeout: .now() + 5) == .success { gate.signal() }
        if !returned.current { readBeforeReturn.withLock { $0 = true } }
        return inner.string(forKey: key)
    }

    func set(_ value: String?, forKey key: String) { inner.set(value, forKey: key) }
}

@Suite struct LifecycleStartupTests {
    /// With lifecycle tracking on, `instance(for:)` reads nothing from the store on the
    /// caller's thread: the "ran before" check happens on the executor.
    @Test func initializeReadsNoStoreOnTheCallersThread() async {
        let store = GatedStore()
        var options = InitOptions(
            writeKey: "lifecycle-startup-\(UUID().uuidString)", ingestionHost: "http://127.0.0.1:9", maxDiskEvents: 0,
            trackLifecycleEvents: true)
        options.keyValueStore = store
        options.lifecycleSource = ManualLifecycleSource()
        options.logSink = RecordingLogSink()
        let app = MetaRouter.Analytics.instance(for: options)
        store.returned.withLock { $0 = true }
        store.gate.signal()
        await app.engine.settle()
        #expect(!store.readBeforeReturn.current)
        await app.shutdown()
    }
}
