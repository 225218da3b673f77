import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// The in-memory queue keeps events' bytes in shared chunks; whatever the sequence of appends,
/// evictions, batches, acknowledgements, releases and removals, it must hand back exactly what
/// a plain array of events would.
@Suite struct InMemoryEventStoreTests {
    /// The behaviour the store promises, written as simply as possible.
    private struct Model {
        var queued: [QueuedEvent] = []
        var pending: PendingBatch?
        let capacity: Int

        var count: Int { queued.count + (pending?.events.count ?? 0) }

        mutating func append(_ event: QueuedEvent) -> [QueuedEvent] {
            var evicted: [QueuedEvent] = []
            if count >= capacity {
                guard !queued.isEmpty else { return [event] }
                evicted.append(queued.removeFirst())
            }
            queued.append(event)
            return evicted
        }

        mutating func take(maxCount: Int, maxBytes: Int) -> [QueuedEvent]? {
            if let pending { return pending.events }
            guard !queued.isEmpty else { return nil }
            var taken: [QueuedEvent] = []
            var bytes = 0
            while let next = queued.first, taken.count < max(1, maxCount) {
                if !taken.isEmpty, bytes + next.payload.count > maxBytes { break }
                bytes += next.payload.count
                taken.append(queued.removeFirst())
            }
            return taken
        }
    }

    private func event(_ index: Int, random: inout SeededRandom) -> QueuedEvent {
        let id = "id-\(index)-\(random.next(1_000_000))"
        let size = random.next(10) == 0 ? 20_000 + random.next(280_000) : random.next(300)
        let body = String(filling: "x", count: size)
        // Most formats write the messageId into the payload; some do not.
        let payload = random.next(4) == 0 ? "{\"b\":\"\(body)\"}" : "{\"messageId\":\"\(id)\",\"b\":\"\(body)\"}"
        let timestamp = Date(timeIntervalSinceReferenceDate: Double(random.next(1 << 40)) / 1024)
        return QueuedEvent(messageId: id, timestamp: timestamp, payload: Array(payload.utf8))
    }

    @Test(arguments: 1...12)
    func behavesLikeAnArrayOfEvents(seed: Int) async throws {
        try await offThePool {
            var random = SeededRandom(seed: UInt64(seed))
            let capacity = 1 + random.next(40)
            let store = InMemoryEventStore(capacity: capacity)
            var model = Model(capacity: capacity)
            var made = 0
            for step in 0..<3_000 {
                switch random.next(10) {
                case 0...5:
                    let next = event(made, random: &random)
                    made += 1
                    #expect(store.append(next) == model.append(next), "seed \(seed), step \(step): eviction")
                case 6:
                    let maxCount = 1 + random.next(12)
                    let maxBytes = random.next(2) == 0 ? Int.max : random.next(100_000)
                    let batch = store.nextBatch(maxCount: maxCount, maxBytes: maxBytes)
                    let expected = model.take(maxCount: maxCount, maxBytes: maxBytes)
                    #expect(batch?.events == expected, "seed \(seed), step \(step): batch")
                    if let batch, model.pending == nil { model.pending = batch }
                case 7:
                    if let batch = model.pending {
                        store.acknowledge(batch)
                        model.pending = nil
                    }
                case 8:
                    if let batch = model.pending {
                        store.release(batch)
                        model.queued = batch.events + model.queued
                        model.pending = nil
                    }
                default:
                    if random.next(8) == 0 {
                        #expect(store.removeAll() == (model.pending?.events ?? []) + model.queued, "seed \(seed), step \(step)")
                        model = Model(capacity: capacity)
                    }
                }
                #expect(store.count == model.count, "seed \(seed), step \(step): count")
            }
        }
    }

    @Test func aReleasedBatchReturnsAheadOfEventsQueuedWhileItWasOut() {
        var random = SeededRandom(seed: 99)
        let store = InMemoryEventStore(capacity: 4)
        let events = (0..<8).map { event($0, random: &random) }
        for event in events[0..<4] { _ = store.append(event) }
        let batch = store.nextBatch(maxCount: 2, maxBytes: .max)
        #expect(batch?.events == Array(events[0..<2]))
        // Full: the oldest events that are not pending make room, the pending two stay.
        #expect(store.append(events[4]) == [events[2]])
        #expect(store.append(events[5]) == [events[3]])
        #expect(store.append(events[6]) == [events[4]])
        if let batch { store.release(batch) }
        #expect(store.removeAll() == [events[0], events[1], events[5], events[6]])
    }
}
