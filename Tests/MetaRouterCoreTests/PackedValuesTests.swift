import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// Generates the plain values a call may pass: the kinds ``PackedValues`` packs, nested up to
/// ``PendingValues/plainNesting`` levels, with text of every width of UTF-8.
private struct PlainValueGenerator {
    var random: SeededRandom

    mutating func dictionary(depth: Int) -> [String: Any] {
        var values: [String: Any] = [:]
        for _ in 0..<random.next(8) { values[text()] = value(depth: depth) }
        return values
    }

    mutating func value(depth: Int) -> Any {
        let kinds = depth < PendingValues.plainNesting ? 14 : 7
        switch random.next(kinds) {
        case 0: return text()
        case 1: return [Int.min, -1, 0, 1, 42, Int.max][random.next(6)]
        case 2: return [0.0, -0.0, 19.99, -1e308, Double.leastNonzeroMagnitude, Double.pi, 1e21][random.next(7)]
        case 3: return random.next(2) == 0
        case 4: return Int64(random.next(1_000_000)) - 500_000
        case 5: return Date(timeIntervalSince1970: Double(random.next(4_000_000_000)) / 1.7)
        case 6: return [Float(19.99), Float(0.1), -Float.leastNormalMagnitude, Float.greatestFiniteMagnitude][random.next(4)]
        case 7: return dictionary(depth: depth + 1)
        case 8: return (0..<random.next(5)).map { _ in value(depth: depth + 1) } as [Any]
        case 9: return (0..<random.next(4)).map { _ in text() }
        case 10: return (0..<random.next(4)).map { _ in random.next(100) }
        case 11: return ["size": text(), "color": text()] as [String: String]
        case 12: return ["price": 1.5, "tax": 0.25] as [String: Double]
        default: return ["count": random.next(10)] as [String: Int]
        }
    }

    mutating func text() -> String {
        let pieces = ["", "a", "sku", "é", "日本", "🛒", "\"quoted\"", "line\nbreak", "a long product name over fifteen bytes"]
        return (0..<random.next(3)).map { _ in pieces[random.next(pieces.count)] }.joined()
    }
}

@Suite struct PackedValuesTests {
    /// Random plain values, packed and read back, are the JSON the converter makes of them, on
    /// a 512 KiB stack as iOS gives a secondary thread.
    @Test func packedValuesReadBackAsTheConverterWouldConvertThem() {
        let mismatches = SmallStack.run { () -> [UInt64] in
            var failed: [UInt64] = []
            for seed in UInt64(1)...400 {
                var generator = PlainValueGenerator(random: SeededRandom(seed: seed))
                let values = generator.dictionary(depth: 1)
                let expected = ValueConverter.convert(values, root: "properties")
                guard expected.issues.isEmpty, let packed = PackedValues.pack(values), packed.unpacked() == expected.value else {
                    failed.append(seed)
                    continue
                }
            }
            return failed
        }
        #expect(mismatches.isEmpty, "seeds \(mismatches)")
    }

    /// Objects on both sides of each size the unpacker keeps an empty object for (6, 12, 24 and
    /// 48 members), at the top and nested, read back whole.
    @Test func objectsOfEverySizeReadBackWhole() {
        for size in [0, 1, 6, 7, 12, 13, 24, 25, 48, 49, 130] {
            var values: [String: Any] = [:]
            for index in 0..<size { values["key-\(index)"] = index }
            values["nested"] = values
            let expected = ValueConverter.convert(values, root: "properties")
            let unpacked = PackedValues.pack(values)?.unpacked()
            #expect(unpacked == expected.value && unpacked?.count == size + 1, "\(size) members")
        }
    }

    /// What the converter must see — a kind it turns into something else or reports, or a
    /// value the caller can still change — is not packed: the call waits as it was.
    @Test func kindsTheConverterMustSeeAreNotPacked() {
        let deep: [String: Any] = ["a": ["b": ["c": ["d": ["e": 1]]]]]
        let unpackable: [[String: Any]] = [
            ["count": NSNumber(value: 3)], ["bad": Double.nan], ["worse": [Double.infinity]], ["ratio": Float.nan], ["box": NSMutableDictionary()], ["maybe": Int?.some(1) as Any],
            deep,
        ]
        for values in unpackable { #expect(PackedValues.pack(values) == nil, "\(values)") }
        let nested: [String: Any] = ["fine": ["b": ["c": ["d": 1] as [String: Any]] as [String: Any]] as [String: Any]]
        #expect(PackedValues.pack(nested)?.unpacked() == ["fine": ["b": ["c": ["d": 1]]]])
    }

    /// Bytes that are not a packing — truncated, flipped, random — read back as `nil` or as
    /// some values, never as a crash or a read past the end.
    @Test func damagedBytesAreReadWithinBounds() {
        let truncatedReadBack = SmallStack.run { () -> Int in
            var random = SeededRandom(seed: 7)
            var generator = PlainValueGenerator(random: SeededRandom(seed: 11))
            var readBack = 0
            for _ in 0..<300 {
                guard let packed = PackedValues.pack(generator.dictionary(depth: 1)), !packed.bytes.isEmpty else { continue }
                let cut = random.next(packed.bytes.count)
                if PackedValues(bytes: Array(packed.bytes[..<cut])).unpacked() != nil { readBack += 1 }
                var flipped = packed.bytes
                flipped[random.next(flipped.count)] ^= UInt8(1 << random.next(8))
                _ = PackedValues(bytes: flipped).unpacked()
                _ = PackedValues(bytes: (0..<random.next(64)).map { _ in UInt8(random.next(256)) }).unpacked()
            }
            return readBack
        }
        #expect(truncatedReadBack == 0)
        #expect(PackedValues(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]).unpacked() == nil)
    }

    /// Once ``PipelineExecutor/compactionThreshold`` events wait, a track call is handed back to
    /// be packed; any other event is taken as it is.
    @Test func theIngressHandsBackTrackCallsOnceItIsBehind() {
        let executor = PipelineExecutor(label: "packed-values-test", held: true)
        let factory = EventFactory(clock: SystemClock(), problems: InputProblemReporter(logger: AnalyticsLogger(sink: SilentSink())))
        let call = factory.trackCommand("Viewed", properties: ["sku": "A-1"], options: nil)
        for _ in 0..<PipelineExecutor.compactionThreshold {
            guard case .accepted = executor.submit(call, compacting: true) else { Issue.record("refused below the threshold"); return }
        }
        guard case .behind = executor.submit(call, compacting: true) else { Issue.record("not handed back"); return }
        guard case .accepted = executor.submit(call, compacting: false) else { Issue.record("refused without compacting"); return }
        guard case .accepted = executor.submit(.event(factory.track("Prepared", properties: ["sku": "A-1"], options: nil)), compacting: true) else {
            Issue.record("an event that is not a track call was handed back")
            return
        }
        executor.release()
    }

    /// A burst tracked while the executor is held: the calls past the threshold wait packed and
    /// reach the destination in order, each with the properties it was tracked with; a value
    /// the converter drops is still reported by its path.
    @Test func callsPackedBehindABacklogArriveInOrderAndUnchanged() async {
        let gate = ExecutorGate()
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let client = AnalyticsClient(configuration: Configuration(writeKey: "packed-burst", logger: AnalyticsLogger(sink: logs)), plugins: [gate, capture])
        await gate.hold(client)
        let total = PipelineExecutor.compactionThreshold * 2
        for index in 0..<total {
            var properties: [String: Any] = ["index": index, "name": "a product name over fifteen bytes", "item": ["price": 1.5, "tags": ["x"]]]
            if index == total - 1 { properties["weight"] = Double.nan }
            client.track("Burst", properties: properties)
        }
        #expect(client.packedCalls == total - PipelineExecutor.compactionThreshold - 1)  // the last, with a NaN, waits unpacked
        gate.open.signal()
        await client.settle()
        let burst = capture.events.filter { $0.event == "Burst" }
        #expect(burst.count == total)
        #expect(burst.map { $0.properties?["index"] } == (0..<total).map { JSON.int(Int64($0)) })
        #expect(burst.allSatisfy { $0.properties?["item"] == ["price": 1.5, "tags": ["x"]] && !$0.messageId.isEmpty })
        #expect(burst.last?.properties?["weight"] == nil)
        #expect(logs.messages.contains { $0.contains("properties.weight") })
        await client.shutdown()
    }

    /// Four threads track at once while the executor is held, so the ingress goes behind under
    /// them: each thread's calls arrive in its own order, none lost, packed or not.
    @Test func threadsTrackingBehindABacklogKeepTheirOrder() async {
        let gate = ExecutorGate()
        let capture = CapturingDestination()
        let client = makeClient([gate, capture], writeKey: "packed-threads")
        await gate.hold(client)
        let perThread = 1_500
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread {
                client.track("Threaded", properties: ["thread": thread, "index": index, "label": "a label over fifteen bytes long"])
            }
        }
        #expect(client.packedCalls > 0)
        gate.open.signal()
        await client.settle()
        let events = capture.events.filter { $0.event == "Threaded" }
        #expect(events.count == 4 * perThread)
        for thread in 0..<4 {
            let indices = events.filter { $0.properties?["thread"] == .int(Int64(thread)) }.map { $0.properties?["index"] }
            #expect(indices == (0..<perThread).map { JSON.int(Int64($0)) }, "thread \(thread)")
        }
        await client.shutdown()
    }
}
