import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// The run that keeps track calls made behind a backlog (``PackedTrackRun``): one ingress slot
/// for consecutive calls, their bytes in chunks.
@Suite struct PackedTrackRunTests {
    /// Calls appended across many chunks — one of them larger than a chunk — come back as their
    /// events in order, each with its own name, exact time and values, and the run is empty
    /// afterwards.
    @Test func aRunGivesBackEveryCallInOrderAcrossChunks() {
        let problems = InputProblemReporter(logger: AnalyticsLogger(sink: SilentSink()))
        let run = PackedTrackRun(problems: problems)
        let start = Date(timeIntervalSince1970: 1_800_000_000.123_456)
        let large = String(repeating: "x", count: PackedTrackRun.chunkSize + 10)
        let total = 2_000
        func values(_ index: Int) -> [String: Any] {
            index == 700 ? ["large": large, "index": index] : ["index": index, "name": "a product name over fifteen bytes", "item": ["price": 1.5]]
        }
        var pool = PackedChunkPool()
        for index in 0..<total {
            let appended: Void? = PackedValues.withPacked(values(index)) {
                run.append(name: "Viewed \(index)", timestamp: start.addingTimeInterval(Double(index) / 7), values: $0, pool: &pool)
            }
            #expect(appended != nil)
        }
        #expect(run.count == total)
        var events: [Event] = []
        run.forEachEvent(giveBack: { pool.giveBack($0) }) { events.append($0) }
        #expect(events.count == total)
        for (index, event) in events.enumerated() {
            let expected = index == 700
                ? ["large": JSON.string(large), "index": .int(700)]
                : ["index": .int(Int64(index)), "name": "a product name over fifteen bytes", "item": ["price": 1.5]]
            guard event.event == "Viewed \(index)", event.timestamp == start.addingTimeInterval(Double(index) / 7), event.properties == expected,
                !event.messageId.isEmpty
            else {
                Issue.record("call \(index) came back as \(event.event ?? "-") at \(event.timestamp)")
                return
            }
        }
        #expect(run.count == 0)
        var again = 0
        run.forEachEvent(giveBack: { _ in again += 1 }) { _ in again += 1 }
        #expect(again == 0)
        // Every chunk of the ordinary size came back for the next run, the large one did not.
        let pooled = pool.count
        #expect(pooled > 4)
        _ = PackedValues.withPacked(["a": 1]) { run.append(name: "Again", timestamp: start, values: $0, pool: &pool) }
        #expect(pool.count == pooled - 1 && run.count == 1)
    }

    /// The pool asks for twice the bytes packed since it was last asked, within its capacity,
    /// keeps only emptied chunks of the ordinary size, and lets everything go when emptied.
    @Test func theChunkPoolPreparesForWhatArrivesWithinItsCapacity() {
        var pool = PackedChunkPool()
        #expect(pool.wanted() == 0)
        _ = pool.chunk(for: 100)
        pool.noteAppended(PackedTrackRun.chunkSize - 100)
        #expect(pool.wanted() == 2)
        #expect(pool.wanted() == 0)  // the arrivals were counted once
        pool.add([PackedChunkPool.touchedChunk(), PackedChunkPool.touchedChunk(), PackedChunkPool.touchedChunk()])
        #expect(pool.count == 3)
        pool.noteAppended(PackedChunkPool.capacityBytes * 10)
        #expect(pool.wanted() == PackedChunkPool.capacityBytes / PackedTrackRun.chunkSize - 3)
        pool.add((0..<100).map { _ in PackedChunkPool.touchedChunk() })
        #expect(pool.count == PackedChunkPool.capacityBytes / PackedTrackRun.chunkSize)
        pool.giveBack([])  // no capacity: not kept
        pool.empty()
        pool.giveBack([UInt8](repeating: 1, count: PackedTrackRun.chunkSize))  // not emptied: not kept
        var large: [UInt8] = []
        large.reserveCapacity(4 * PackedTrackRun.chunkSize)
        pool.giveBack(large)
        #expect(pool.count == 0)
        var ordinary = PackedChunkPool.touchedChunk()
        ordinary.removeAll(keepingCapacity: true)
        pool.giveBack(ordinary)
        #expect(pool.count == 1)
    }

    /// Every length reads back as written, in the bytes ``LEB128/size(of:)`` counts; a length
    /// that runs past its buffer or claims more bytes than follow does not read.
    @Test func lengthsReadBackAsWritten() {
        var random = SeededRandom(seed: 53)
        let lengths = [0, 1, 127, 128, 16_383, 16_384, Int(Int32.max), Int.max] + (0..<200).map { _ in random.next(1 << 40) }
        for length in lengths {
            var bytes: [UInt8] = []
            LEB128.append(length, to: &bytes)
            #expect(bytes.count == LEB128.size(of: length))
            let padded = bytes + [UInt8](repeating: 0, count: min(length, 64))
            var position = 0
            let read = padded.withUnsafeBytes { LEB128.read($0, at: &position) }
            #expect(read == (length <= 64 ? length : nil), "\(length)")
        }
        var position = 0
        #expect([UInt8]([0x80, 0x80]).withUnsafeBytes { LEB128.read($0, at: &position) } == nil)
    }

    /// Values that do not pack are never handed to the body; those too large for the stack
    /// scratch are packed all the same.
    @Test func withPackedPacksWhatPacksAndNothingElse() {
        var called = 0
        #expect(PackedValues.withPacked(["bad": Double.nan]) { _ in called += 1 } == nil)
        #expect(called == 0)
        let large = ["text": String(repeating: "y", count: 5_000)] as [String: Any]
        let readBack = PackedValues.withPacked(large) { PackedValues.unpacked($0) }
        #expect(readBack == .some(["text": .string(String(repeating: "y", count: 5_000))]))
    }

    /// A packed call whose bytes do not read back still makes its event, without properties,
    /// and says so; a sound one makes the event its call described.
    @Test func aPackedCallMakesItsEventAndReportsBytesThatDoNotReadBack() {
        let logs = RecordingLogSink()
        let problems = InputProblemReporter(logger: AnalyticsLogger(sink: logs))
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let sound = PackedValues.withPacked(["sku": "A-1", "n": 2]) { PackedTrackRun.event(name: "Viewed", timestamp: when, values: $0, problems: problems) }
        #expect(sound?.event == "Viewed" && sound?.timestamp == when && sound?.properties == ["sku": "A-1", "n": 2] && sound?.messageId.isEmpty == false)
        #expect(logs.messages.isEmpty)
        let damaged = [0x05, UInt8(ascii: "s")].withUnsafeBytes { PackedTrackRun.event(name: "Viewed", timestamp: when, values: $0, problems: problems) }
        #expect(damaged.properties == [:])
        #expect(logs.messages.contains { $0.contains("could not be read back") })
    }

    /// Work submitted between packed calls keeps its place: it sees exactly the events tracked
    /// before it (each run of packed calls ends where other work was submitted); prompt work
    /// submitted while the executor is inside a long run overtakes the rest of it after a few
    /// dozen of its calls.
    @Test func otherWorkKeepsItsPlaceAmongPackedCalls() async {
        let gate = ExecutorGate()
        let counter = SeenEvents()
        let client = makeClient([gate, counter], writeKey: "packed-runs")
        let seenAtPrompt = Locked<Int?>(nil)
        // Inside the first run (its calls start after the threshold's unpacked ones).
        let promptAt = PipelineExecutor.compactionThreshold + 200
        counter.onCount(promptAt) { client.performPromptly { _ in seenAtPrompt.withLock { $0 = counter.count } } }
        await gate.hold(client)
        let seenAtWork = Locked<[Int]>([])
        let burst = PipelineExecutor.compactionThreshold * 2
        for round in 0..<3 {
            for index in 0..<burst {
                let properties: [String: Any] = ["round": round, "index": index]
                client.track("Run", properties: properties)
            }
            client.perform { _ in seenAtWork.withLock { $0.append(counter.count) } }
        }
        #expect(client.packedCalls >= 3 * burst - PipelineExecutor.compactionThreshold)
        gate.open.signal()
        await client.settle()
        // The gate's own event counts first.
        #expect(seenAtWork.current == [1 + burst, 1 + 2 * burst, 1 + 3 * burst])
        let prompt = seenAtPrompt.current ?? Int.max
        #expect(prompt > promptAt && prompt <= promptAt + PipelineExecutor.promptInterval)
        #expect(counter.count == 1 + 3 * burst)
        await client.shutdown()
    }
}

/// Counts the events it has seen, on the executor, and runs an action when the count reaches a
/// given number.
private final class SeenEvents: Plugin, @unchecked Sendable {  // `seen` and `action` are only touched under `lock`
    let type = PluginType.before
    private let lock = NSLock()
    private var seen = 0
    private var action: (count: Int, run: @Sendable () -> Void)?

    var count: Int { lock.withLock { seen } }

    /// Runs `action` on the executor once `count` events have been seen.
    func onCount(_ count: Int, _ action: @escaping @Sendable () -> Void) { lock.withLock { self.action = (count, action) } }

    func execute(event: Event) -> Event? {
        let due = lock.withLock { () -> (@Sendable () -> Void)? in
            seen += 1
            return seen == action?.count ? action?.run : nil
        }
        due?()
        return event
    }
}
