import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Instances that live and die cleanly: a shut-down instance releases its log and lock and
/// leaves the registry, a client nobody holds goes away, shutdown is bounded, and signal
/// dispositions are given back.
@Suite struct InstanceLifetimeTests {
    private func options(_ key: String, host: URL, directory: URL) -> InitOptions {
        var options = InitOptions(writeKey: key, ingestionHost: host.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.requestTimeoutSeconds = 5
        return options
    }

    @Test func afterShutdownTheWriteKeyGetsALiveInstanceThatDeliversWhatWasLeft() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "lifetime-\(UUID())"
        try await collector.script(fallback: ScriptedResponse(status: 503))
        let first = MetaRouter.Analytics.instance(for: options(key, host: collector.baseURL, directory: directory.url))
        for index in 0..<5 { first.track("Left Behind", properties: ["n": index]) }
        await first.flushAndWait()
        await first.shutdown()

        try await collector.script(fallback: ScriptedResponse(status: 200))
        let second = MetaRouter.Analytics.instance(for: options(key, host: collector.baseURL, directory: directory.url))
        #expect(second !== first)
        #expect(second.configurationError == nil)
        let info = await second.getDebugInfo()
        #expect(info.error == nil, "the second instance could not open the log: \(info.error ?? "")")
        await second.flushAndWait()
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == [0, 1, 2, 3, 4])
        await second.shutdown()
    }

    /// A shutdown whose deadline passes while a request hangs still releases the log as it
    /// returns: the next instance for the key opens it on disk and delivers everything, the
    /// interrupted batch under the key it first went with.
    @Test func aShutdownPastItsDeadlineLeavesTheLogToTheNextInstance() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "deadline-\(UUID())"
        try await collector.script([ScriptedResponse(delay: 60)], fallback: ScriptedResponse(status: 200))
        var hanging = options(key, host: collector.baseURL, directory: directory.url)
        hanging.requestTimeoutSeconds = 30
        let first = MetaRouter.Analytics.instance(for: hanging)
        for index in 0..<250 { first.track("Interrupted", properties: ["n": index]) }
        first.flush()
        _ = try await collector.waitFor { !$0.isEmpty }
        let started = Date()
        #expect(await first.shutdown(timeout: 0.5) == false)
        // Bounded, not waiting for the hanging answer: generous, since a busy machine is slow.
        #expect(Date().timeIntervalSince(started) < 30)

        let second = MetaRouter.Analytics.instance(for: options(key, host: collector.baseURL, directory: directory.url))
        let info = await second.getDebugInfo()
        #expect(info.queueOnDisk && info.error == nil, "the log was still held: \(info.error ?? "")")
        await second.flushAndWait()
        // The hanging request is recorded as it arrived: both copies of its batch carry one key.
        let requests = try await collector.requests()
        var keys: [Int: Set<String>] = [:]
        for request in requests where (200..<300).contains(request.status) {
            for event in request.events { if let number = event.number { keys[number, default: []].insert(request.headers["idempotency-key"] ?? "") } }
        }
        #expect(Set(keys.keys) == Set(0..<250))
        #expect(keys.values.allSatisfy { $0.count == 1 }, "a batch went out under two keys")
        await second.shutdown()
    }

    /// `flushAt` and `maxBatchSize` reach the uploader: three events start a request of two;
    /// the third waits for the next trigger (here the flush).
    /// Asking again for a write key with other options returns the existing instance and says
    /// so at warning level, once, naming what differs; asking with the same options is silent.
    @Test func aKnownKeyWithOtherOptionsWarnsOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "other-options-\(UUID())"
        let logs = RecordingLogSink()
        var first = options(key, host: URL(string: "http://127.0.0.1:9")!, directory: directory.url)
        first.logSink = logs
        let made = MetaRouter.Analytics.instance(for: first)
        #expect(MetaRouter.Analytics.instance(for: first) === made)
        var other = first
        other.ingestionHost = "http://127.0.0.1:10"
        other.maxDiskBytes = 1 << 20
        #expect(MetaRouter.Analytics.instance(for: other) === made)
        #expect(MetaRouter.Analytics.instance(for: other) === made)
        let warnings = logs.messages(atLeast: .warning).filter { $0.contains("sdk.instance_exists") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("ingestionHost, maxDiskBytes") == true, "\(warnings)")
        await made.shutdown()
    }

    @Test func batchingOptionsReachTheUploader() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var settings = options("batching-\(UUID())", host: collector.baseURL, directory: directory.url)
        settings.flushAt = 3
        settings.maxBatchSize = 2
        // On a loaded machine a request may outlive a short timeout and be sent again with the
        // same key; batches are told apart by that key, and the timeout is long.
        settings.requestTimeoutSeconds = 60
        let instance = MetaRouter.Analytics.instance(for: settings)
        for index in 0..<3 { instance.track("Batched", properties: ["n": index]) }
        let first = try await collector.waitFor { $0.count >= 1 }
        #expect(Self.batches(first) == [[0, 1]])
        await instance.flushAndWait()
        #expect(Self.batches(try await collector.requests()) == [[0, 1], [2]])
        await instance.shutdown()
    }

    /// The `n` of each batch's events, one entry per idempotency key in arrival order.
    private static func batches(_ requests: [RecordedRequest]) -> [[Int]] {
        var seen = Set<String>()
        return requests.compactMap { request in
            guard seen.insert(request.headers["idempotency-key"] ?? "").inserted else { return nil }
            return request.events.compactMap(\.number)
        }
    }

    /// `maxDiskAgeSeconds` reaches the log: events older than it when the next start opens
    /// the log are dropped, counted and logged, not sent.
    @Test func eventsOlderThanTheDiskAgeAreDroppedAtTheNextStart() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "disk-age-\(UUID())"
        try await collector.script(fallback: ScriptedResponse(status: 503))
        let first = MetaRouter.Analytics.instance(for: options(key, host: collector.baseURL, directory: directory.url))
        for index in 0..<5 { first.track("Too Old", properties: ["n": index]) }
        await first.flushAndWait()
        await first.shutdown()

        try await collector.script(fallback: ScriptedResponse(status: 200))
        let clock = ManualClock(start: Date().addingTimeInterval(120))
        let logs = RecordingLogSink()
        var later = options(key, host: collector.baseURL, directory: directory.url)
        later.maxDiskAgeSeconds = 60
        later.clock = clock
        later.logSink = logs
        let second = MetaRouter.Analytics.instance(for: later)
        second.track("Fresh", properties: ["n": 99])
        await second.flushAndWait()
        #expect(try await collector.acceptedEvents().compactMap(\.number) == [99])
        #expect(logs.messages(atLeast: .info).contains { $0.contains("dropped 5 older than the age limit") })
        await second.shutdown()
        var invalid = options(key, host: collector.baseURL, directory: directory.url)
        invalid.maxDiskAgeSeconds = .nan
        #expect(invalid.validationErrors().contains { $0.contains("maxDiskAgeSeconds") })
    }

    @Test func aClientNobodyHoldsGoesAway() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        weak var released: MetaRouter.Analytics?
        do {
            let client = MetaRouter.Analytics.instance(
                for: options("weak-\(UUID())", host: URL(string: "http://127.0.0.1:9")!, directory: directory.url))
            client.track("Once")
            await client.engine.settle()
            await client.shutdown(timeout: 1)
            released = client
        }
        // The executor may still hold it for the drain cycle that ran the shutdown.
        let deadline = Date().addingTimeInterval(5)
        while released != nil, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(released == nil, "the client is still alive after shutdown with no one holding it")
    }

    /// A plugin that never calls back, and one that calls back twice.
    final class Misbehaving: CompletingPlugin, @unchecked Sendable {  // fields are read on the executor only
        let type = PluginType.after
        let callsBack: Int
        init(callsBack: Int) { self.callsBack = callsBack }
        func flush(completion: @escaping @Sendable () -> Void) { for _ in 0..<callsBack { completion() } }
        func shutdown(completion: @escaping @Sendable () -> Void) { for _ in 0..<callsBack { completion() } }
    }

    @Test func shutdownIsBoundedAndToleratesPluginsThatCallBackTwiceOrNever() async {
        let twice = AnalyticsClient(configuration: Configuration(writeKey: "twice", logger: AnalyticsLogger(sink: RecordingLogSink())), plugins: [Misbehaving(callsBack: 2)])
        await twice.flushAndWait()
        #expect(await twice.shutdown(timeout: 5))
        let logs = RecordingLogSink()
        let never = AnalyticsClient(configuration: Configuration(writeKey: "never", logger: AnalyticsLogger(sink: logs)), plugins: [Misbehaving(callsBack: 0)])
        let started = Date()
        #expect(await never.shutdown(timeout: 0.2) == false)
        // Bounded, not hung: generous, since a busy machine (or ThreadSanitizer) is slow.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(logs.messages.contains { $0.contains("did not finish within") })
    }

    private func disposition(_ number: Int32) -> String {
        var action = sigaction()
        sigaction(number, nil, &action)
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        return handler == 0 ? "default" : handler == 1 ? "ignore" : "handler"
    }

    @Test func signalDispositionsAreGivenBackWhenTheLastInstanceStops() {
        let number = SIGUSR2
        #expect(disposition(number) == "default")
        let first = ServerProcessLifecycleSource(terminateOnSignals: [number])
        let second = ServerProcessLifecycleSource(terminateOnSignals: [number])
        first.start { _ in }
        second.start { _ in }
        // Watched: Dispatch's handler on Linux (the default action is set aside).
        #expect(disposition(number) != "default")
        first.stop()
        #expect(disposition(number) != "default", "the second instance still watches the signal")
        second.stop()
        #expect(disposition(number) == "default")
    }
}
