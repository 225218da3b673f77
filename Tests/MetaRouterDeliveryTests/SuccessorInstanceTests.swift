import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// An instance asked for while the one its write key had is still shutting down: it is a new
/// instance at once, keeps its calls in order, and opens the event log only once its
/// predecessor has finished, so two engines never share a log; nothing either accepted is lost.
@Suite struct SuccessorInstanceTests {
    private func options(_ key: String, host: URL, directory: URL, logs: RecordingLogSink) -> InitOptions {
        var options = InitOptions(writeKey: key, ingestionHost: host.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = logs
        options.requestTimeoutSeconds = 5
        return options
    }

    /// `options` with a plugin factory that notes when it runs: when the instance starts.
    private func noticingStart(_ options: InitOptions) -> (InitOptions, Locked<Bool>) {
        let started = Locked(false)
        var noticing = options
        noticing.plugins = {
            started.withLock { $0 = true }
            return []
        }
        return (noticing, started)
    }

    /// Holds the instance's shutdown open until the test lets it finish, and says when it began.
    final class HeldShutdown: CompletingPlugin, @unchecked Sendable {  // `pending` is behind its lock
        let type = PluginType.after
        let began: AsyncStream<Void>
        private let beganContinuation: AsyncStream<Void>.Continuation
        private let pending = Locked<(@Sendable () -> Void)?>(nil)

        init() { (began, beganContinuation) = AsyncStream<Void>.makeStream() }

        func flush(completion: @escaping @Sendable () -> Void) { completion() }
        func shutdown(completion: @escaping @Sendable () -> Void) {
            pending.withLock { $0 = completion }
            beganContinuation.yield()
        }

        func finish() { pending.withLock { $0 }?() }
    }

    @Test func aSuccessorWaitsForItsPredecessorAndBothDeliverEverything() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "successor-\(UUID())"
        let logs = RecordingLogSink()
        try await collector.script(fallback: ScriptedResponse(status: 503))
        let held = HeldShutdown()
        var firstOptions = options(key, host: collector.baseURL, directory: directory.url, logs: logs)
        firstOptions.plugins = { [held] }
        let first = MetaRouter.Analytics.instance(for: firstOptions)
        for index in 0..<5 { first.track("Before", properties: ["n": index]) }
        await first.flushAndWait()
        let shutdown = Task { await first.shutdown(timeout: 60) }
        var began = held.began.makeAsyncIterator()
        await began.next()

        // The predecessor is shutting down (its plugin holds it): a new instance, held.
        let (secondOptions, configured) = noticingStart(options(key, host: collector.baseURL, directory: directory.url, logs: logs))
        let second = MetaRouter.Analytics.instance(for: secondOptions)
        #expect(second !== first)
        for index in 5..<10 { second.track("After", properties: ["n": index]) }
        #expect(!configured.current, "the successor built its plugins while its predecessor was still shutting down")
        #expect(logs.messages.contains { $0.contains("sdk.waiting_for_predecessor") })

        try await collector.script(fallback: ScriptedResponse(status: 200))
        held.finish()
        #expect(await shutdown.value)
        await second.flushAndWait()
        #expect(configured.current)
        let info = await second.getDebugInfo()
        #expect(info.error == nil, "the successor could not open the log: \(info.error ?? "")")
        #expect(try await collector.acceptedEvents().compactMap(\.number) == Array(0..<10))
        #expect(MetaRouter.Analytics.instance(for: secondOptions) === second)
        await second.shutdown()
    }

    /// The events accepted, as the ingestion service keeps them: a batch sent again under a key
    /// it already answered is one it has (a shutdown past its deadline leaves its batch in
    /// flight to the next instance, which sends it again under the key it first went with).
    private func deduplicated(_ collector: Collector) async throws -> [Int] {
        var keys = Set<String>()
        var numbers: [Int] = []
        for request in try await collector.requests() where (200..<300).contains(request.status) && !request.dropped {
            guard let key = request.headers["idempotency-key"], keys.insert(key).inserted else { continue }
            numbers += request.events.compactMap(\.number)
        }
        return numbers
    }

    /// Holds the executor up on an event named `Block` until the test lets it go.
    final class BlockingPlugin: Plugin, @unchecked Sendable {  // only the semaphores are shared
        let type = PluginType.enrichment
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        func execute(event: consuming Event) -> Event? {
            if event.event == "Block" {
                entered.signal()
                proceed.wait()
            }
            return event
        }
    }

    /// A shutdown that runs past its deadline returns while the executor is still held up by a
    /// plugin, with the log still open: the successor waits until the executor has closed it.
    @Test func aShutdownPastItsDeadlineHoldsTheSuccessorBackUntilTheLogIsClosed() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "deadline-successor-\(UUID())"
        let logs = RecordingLogSink()
        try await collector.script(fallback: ScriptedResponse(status: 200))
        let blocking = BlockingPlugin()
        var firstOptions = options(key, host: collector.baseURL, directory: directory.url, logs: logs)
        firstOptions.plugins = { [blocking] }
        let first = MetaRouter.Analytics.instance(for: firstOptions)
        for index in 0..<5 { first.track("Before", properties: ["n": index]) }
        first.track("Block", properties: ["n": 5])
        await Task.detached { blocking.entered.wait() }.value
        #expect(await first.shutdown(timeout: 0.3) == false)

        let (secondOptions, configured) = noticingStart(options(key, host: collector.baseURL, directory: directory.url, logs: logs))
        let second = MetaRouter.Analytics.instance(for: secondOptions)
        for index in 6..<10 { second.track("After", properties: ["n": index]) }
        #expect(!configured.current, "the successor started while its predecessor's executor still held the log")
        blocking.proceed.signal()
        await second.flushAndWait()
        #expect(configured.current)
        let numbers = try await deduplicated(collector)
        #expect(numbers == Array(0..<10), "\(numbers)")
        #expect(!logs.messages.contains { $0.contains("in use") })
        await second.shutdown()
    }

    /// A successor shut down while it still waits (its shutdown runs past its deadline, its
    /// executor held): the next instance waits for it in turn, not only for its deadline.
    @Test func aChainOfSuccessorsStartsOneAfterTheOther() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "chain-\(UUID())"
        let logs = RecordingLogSink()
        try await collector.script(fallback: ScriptedResponse(status: 200))
        let held = HeldShutdown()
        var firstOptions = options(key, host: collector.baseURL, directory: directory.url, logs: logs)
        firstOptions.plugins = { [held] }
        let first = MetaRouter.Analytics.instance(for: firstOptions)
        for index in 0..<5 { first.track("First", properties: ["n": index]) }
        let shutdown = Task { await first.shutdown(timeout: 60) }
        var began = held.began.makeAsyncIterator()
        await began.next()

        let second = MetaRouter.Analytics.instance(for: options(key, host: collector.baseURL, directory: directory.url, logs: logs))
        for index in 5..<10 { second.track("Second", properties: ["n": index]) }
        #expect(await second.shutdown(timeout: 0.3) == false)
        let (thirdOptions, configured) = noticingStart(options(key, host: collector.baseURL, directory: directory.url, logs: logs))
        let third = MetaRouter.Analytics.instance(for: thirdOptions)
        #expect(third !== second)
        for index in 10..<15 { third.track("Third", properties: ["n": index]) }
        #expect(!configured.current)
        held.finish()
        #expect(await shutdown.value)
        await third.flushAndWait()
        #expect(configured.current)
        let numbers = try await deduplicated(collector)
        #expect(numbers == Array(0..<15), "\(numbers)")
        #expect(!logs.messages.contains { $0.contains("in use") })
        await third.shutdown()
    }

    /// Seeded interleavings of asking for an instance, tracking, flushing and shutting down
    /// (awaited or not) on three write keys: each event accepted is delivered once, in order per
    /// key, and no instance ever finds its log open in another.
    @Test(arguments: [UInt64(0x5eed_0001), 0x5eed_0002, 0x5eed_0003])
    func everyInterleavingOfShutdownsAndSuccessorsLosesNothing(seed: UInt64) async throws {
        print("SuccessorInstanceTests seed \(seed)")
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logs = RecordingLogSink()
        let keys = (0..<3).map { "interleave-\(seed)-\($0)-\(UUID())" }
        let directories = keys.indices.map { directory.url.appendingPathComponent("k\($0)", isDirectory: true) }
        var random = SeededRandom(seed: seed)
        var next = Array(repeating: 0, count: keys.count)
        var used: [[MetaRouter.Analytics]] = Array(repeating: [], count: keys.count)
        var shutdowns: [Task<Bool, Never>] = []
        try await collector.script(fallback: ScriptedResponse(status: 200))
        for _ in 0..<60 {
            let slot = random.next(keys.count)
            let instance = MetaRouter.Analytics.instance(
                for: options(keys[slot], host: collector.baseURL, directory: directories[slot], logs: logs))
            if !used[slot].contains(where: { $0 === instance }) { used[slot].append(instance) }
            switch random.next(10) {
            case 0..<5:
                for _ in 0..<1 + random.next(20) {
                    // Numbered per key: key k's events from k × 1,000,000.
                    instance.track("Step", properties: ["n": slot * 1_000_000 + next[slot]])
                    next[slot] += 1
                }
            case 5:
                instance.flush()
            case 6:
                try await collector.script(fallback: ScriptedResponse(status: random.next(2) == 0 ? 503 : 200))
            case 7, 8:
                shutdowns.append(Task { await instance.shutdown(timeout: 30) })
            default:
                _ = await instance.shutdown(timeout: 30)
            }
        }
        for shutdown in shutdowns { _ = await shutdown.value }
        try await collector.script(fallback: ScriptedResponse(status: 200))
        for slot in keys.indices {
            // The live instance, whose breaker may be open after the 503s, stops; a fresh one
            // opens the log and delivers what is left.
            for _ in 0..<2 {
                let last = MetaRouter.Analytics.instance(
                    for: options(keys[slot], host: collector.baseURL, directory: directories[slot], logs: logs))
                if !used[slot].contains(where: { $0 === last }) { used[slot].append(last) }
                await last.flushAndWait()
                await last.shutdown()
            }
        }
        // An event tracked to an instance after its shutdown had begun is dropped and counted;
        // every other one arrives once, and each key's arrive in the order they were tracked.
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(Set(numbers).count == numbers.count, "an event arrived twice")
        let dropped = used.joined().map(\.engine.droppedCalls).reduce(0, +)
        #expect(numbers.count + dropped == next.reduce(0, +))
        for slot in keys.indices {
            let own = numbers.filter { $0 / 1_000_000 == slot }
            #expect(own == own.sorted(), "key \(slot)'s events arrived out of order")
        }
        let refused = logs.messages.filter { $0.contains("could not open") || $0.contains("in use") }
        #expect(refused.isEmpty, "\(refused)")
    }
}

