import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// Recovery's index of the event records it finds must keep what a plain map from sequence
/// number to record keeps — a later record of a sequence number replaces the earlier one, a
/// removal takes out what was found before it — in sequence order, whatever order the records
/// come in (rewrites copy older events into later segments).
@Suite struct RecoveredEventsTests {
    private typealias Entry = DiskEventStore.Entry

    private func entry(_ sequence: UInt64, segment: UInt64) -> Entry {
        Entry(sequence: sequence, segment: segment, offset: Int(sequence % 1000), length: 40, payloadCount: 20)
    }

    @Test func keepsWhatAMapFromSequenceToRecordKeeps() {
        var random = SeededRandom(seed: 20261125)
        var reordered = 0
        for round in 0..<400 {
            var recovered = DiskEventStore.RecoveredEvents()
            var reference: [UInt64: (segment: UInt64, millis: Int64)] = [:]
            var next: UInt64 = UInt64(random.next(50))
            for step in 0..<(20 + random.next(300)) {
                switch random.next(10) {
                case 0, 1:
                    // A removal of a range, small or large, of what was found so far.
                    let low = UInt64(random.next(Int(next) + 1))
                    let high = random.next(4) == 0 ? low + UInt64(random.next(100_000)) : low + UInt64(random.next(8))
                    recovered.remove(low...high)
                    reference = reference.filter { !(low...high).contains($0.key) }
                case 2:
                    // A rewrite's copy of an older event, or an event seen before, again.
                    let sequence = UInt64(random.next(Int(next) + 1))
                    recovered.add(entry(sequence, segment: UInt64(step)), millis: Int64(round * 1000 + step))
                    reference[sequence] = (UInt64(step), Int64(round * 1000 + step))
                default:
                    recovered.add(entry(next, segment: UInt64(step)), millis: Int64(round * 1000 + step))
                    reference[next] = (UInt64(step), Int64(round * 1000 + step))
                    next += UInt64(1 + random.next(3))
                }
                #expect(recovered.count == reference.count)
            }
            let ordered = recovered.ordered()
            let expected = reference.sorted { $0.key < $1.key }
            #expect(ordered.map(\.entry.sequence) == expected.map(\.key))
            #expect(ordered.map(\.entry.segment) == expected.map(\.value.segment))
            #expect(ordered.map(\.millis) == expected.map(\.value.millis))
            if expected.count > 1 { reordered += 1 }
        }
        #expect(reordered > 300)
    }

    @Test func aRemovalTakesOutOnlyWhatWasFoundBeforeIt() {
        var recovered = DiskEventStore.RecoveredEvents()
        recovered.add(entry(1, segment: 1), millis: 1)
        recovered.add(entry(2, segment: 1), millis: 2)
        recovered.remove(1...2)
        // Copied by a rewrite after the removal was written: it stays.
        recovered.add(entry(2, segment: 2), millis: 3)
        recovered.add(entry(3, segment: 2), millis: 4)
        recovered.add(entry(1, segment: 3), millis: 5)
        #expect(recovered.ordered().map { [$0.entry.sequence, $0.entry.segment] } == [[1, 3], [2, 2], [3, 2]])
    }
}
