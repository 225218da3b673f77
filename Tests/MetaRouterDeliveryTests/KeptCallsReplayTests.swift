import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// What `shared` keeps before `initialize(with:)` reaches the collector, over real HTTP, even
/// when it is more than the bound instance's queue holds; and calls it drops are counted
/// truthfully, in the log and in `getDebugInfo()`. Each test uses a `shared`-like object of its
/// own, so `shared` is untouched.
@Suite struct KeptCallsReplayTests {
    private func options(_ collector: Collector, directory: URL, diskEvents: Int, logs: RecordingLogSink) -> InitOptions {
        var options = InitOptions(
            writeKey: "kept-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 1, maxQueueEvents: 1_000,
            maxDiskEvents: diskEvents)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = logs
        return options
    }

    /// 12,000 kept calls into a queue of 2,000 (disk) or 1,000 (memory), the host up: every one
    /// delivered, in order, none evicted by the replay.
    @Test(arguments: [2_000, 0])
    func everyKeptCallIsDeliveredThroughASmallerQueue(diskEvents: Int) async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let unbound = MetaRouter.Analytics.unboundShared()
        let kept = 12_000
        for index in 0..<kept { unbound.track("Kept", properties: ["n": index], options: nil) }
        let logs = RecordingLogSink()
        let analytics = MetaRouter.Analytics.instance(for: options(collector, directory: directory.url, diskEvents: diskEvents, logs: logs))
        unbound.bind(analytics)
        let delivered = await eventually {
            await analytics.flushAndWait()
            return await analytics.getDebugInfo().stats.sent >= kept
        }
        let info = await unbound.getDebugInfo()
        await analytics.shutdown()
        #expect(delivered, "sent \(info.stats.sent) of \(kept)")
        #expect(info.stats.dropped.isEmpty, "\(info.stats.dropped)")
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == Array(0..<kept))
    }

    /// Calls past the bound are dropped at the call; the log's lines add up to every one of
    /// them (the rest of a burst reported at binding, with the total), and `getDebugInfo()`
    /// counts them as `overflow` before binding and after.
    @Test func droppedCallsAreCountedTruthfully() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let unbound = MetaRouter.Analytics.unboundShared()
        let extra = 950
        for index in 0..<(Defaults.maxPendingEvents + extra) { unbound.track("Early", properties: ["n": index], options: nil) }
        #expect(unbound.droppedBeforeInitialize == extra)
        #expect(await unbound.getDebugInfo().stats.dropped[.overflow] == extra)
        let logs = RecordingLogSink()
        let analytics = MetaRouter.Analytics.instance(
            for: options(collector, directory: directory.url, diskEvents: Defaults.maxPendingEvents, logs: logs))
        unbound.bind(analytics)
        // The first drop was logged at once (to standard error: nothing was bound); the rest
        // of the burst at binding, through the bound instance's log.
        let tail = logs.messages(atLeast: .warning).filter { $0.contains("sdk.ingress_full") }
        #expect(tail.count == 1 && tail[0].contains("dropped \(extra - 1) call(s)") && tail[0].contains("(\(extra) in all)"), "\(tail)")
        await analytics.engine.settle()
        #expect(await unbound.getDebugInfo().stats.dropped[.overflow] == extra)
        await analytics.shutdown()
    }

    /// A queue that overflows in one burst, the host down: the `sdk.queue_full` lines add up to
    /// every eviction once a flush reports the rest, and each says the total so far.
    @Test func queueFullLinesAddUpToEveryEviction() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logs = RecordingLogSink()
        var options = InitOptions(writeKey: "kept-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600, maxQueueEvents: 100, maxDiskEvents: 0)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = logs
        let analytics = MetaRouter.Analytics.instance(for: options)
        for index in 0..<5_000 { analytics.track("Burst", properties: ["n": index]) }
        await analytics.engine.settle()
        analytics.flush()
        await analytics.engine.settle()
        let evicted = await analytics.getDebugInfo().stats.dropped[.queueFull] ?? 0
        await analytics.shutdown(timeout: 1)
        let lines = logs.messages(atLeast: .warning).filter { $0.contains("sdk.queue_full") }
        let counts = lines.compactMap { line -> Int? in
            guard let range = line.range(of: "dropped ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(evicted >= 4_800)
        #expect(counts.reduce(0, +) == evicted, "\(lines)")
        #expect(lines.last?.contains("(\(evicted) in all)") == true, "\(lines)")
    }
}
