import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// While the host fails, the disk log keeps an eighth of its memory budget: nothing leaves until
/// the host answers, so the queue waits on disk. Once it answers, the whole budget is back.
@Suite struct HostDownResidencyTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func event(_ index: Int) -> QueuedEvent {
        QueuedEvent(messageId: "m-\(index)", timestamp: now, payload: Array("{\"n\":\(index),\"pad\":\"\(String(repeating: "z", count: 80))\"}".utf8))
    }

    private func fill(_ store: DiskEventStore, _ range: Range<Int>) {
        for index in range {
            _ = store.append(event(index))
            if index % 25 == 24 { store.commit() }
        }
        store.commit()
    }

    /// The resident events are the head of the queue, the events the next batches take.
    private func residentsAreTheHead(_ store: DiskEventStore) -> Bool {
        let queued = store.entries[store.head...].map(\.sequence)
        let resident = Set(store.residents.keys)
        return queued.prefix(resident.count).allSatisfy(resident.contains)
    }

    @Test func aFailingHostShrinksWhatStaysInMemoryAndAnAnswerRestoresIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DiskLogOptions(directory: directory.url)
        options.residentBytes = 8_000
        options.segmentBytes = 16 * 1024
        let store = try DiskEventStore(options: options, clock: ManualClock(start: now))
        fill(store, 0..<200)
        #expect(store.residentBytes > 1_000 && store.residentBytes <= 8_000)
        let batch = try #require(store.nextBatch(maxCount: 10, maxBytes: .max))

        store.noteHost(failing: true)
        #expect(store.residentBytes <= 1_000 && store.residentBytes > 0, "\(store.residentBytes) bytes resident")
        #expect(residentsAreTheHead(store))
        fill(store, 200..<400)
        #expect(store.residentBytes <= 1_000, "\(store.residentBytes) bytes resident after more events")
        #expect(residentsAreTheHead(store))

        store.noteHost(failing: false)
        store.acknowledge(batch)
        fill(store, 400..<600)
        #expect(store.residentBytes > 1_000 && store.residentBytes <= 8_000, "\(store.residentBytes) bytes resident")

        var delivered = batch.events.map(\.messageId)
        while let next = store.nextBatch(maxCount: 40, maxBytes: .max) {
            delivered += next.events.map(\.messageId)
            store.acknowledge(next)
        }
        #expect(delivered == (0..<600).map { "m-\($0)" })
        #expect(store.unreadableRecords == 0)
        store.close()
    }

    /// Events not yet written stay in memory whatever the budget, and so does everything while
    /// the log cannot be written.
    @Test func unwrittenEventsStayResidentWhileTheHostFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DiskLogOptions(directory: directory.url)
        options.residentBytes = 8_000
        let store = try DiskEventStore(options: options, clock: ManualClock(start: now))
        for index in 0..<50 { _ = store.append(event(index)) }
        store.noteHost(failing: true)
        #expect(store.residents.count == 50, "an event is let go only once it is on disk")
        store.commit()
        #expect(store.residentBytes <= 1_000)
        store.close()
    }

    /// Through the uploader: a host answering 503 makes the log keep the smaller budget while
    /// the retry waits; once the host takes the batch, later events stay resident again.
    @Test func theUploaderTellsTheLogWhenTheHostFailsAndAnswers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let harness = try await DeliveryHarness { options in
            var disk = DiskLogOptions(directory: directory.url)
            disk.residentBytes = 64_000
            options.disk = disk
            options.upload.maxBatchSize = 20
        }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 503)])
        harness.track(300)
        await harness.client.flushAndWait()
        #expect(try await harness.collector.requests().map(\.status) == [503])
        harness.track(300, from: 300)
        await harness.client.settle()
        let whileFailing = await residentBytes(harness)
        #expect(whileFailing <= 8_000, "\(whileFailing) bytes resident while the host fails")

        await harness.advance(by: 5)
        #expect(try await harness.collector.requests().map(\.status).prefix(2) == [503, 200])
        harness.track(300, from: 600)
        await harness.client.settle()
        let answering = await residentBytes(harness)
        #expect(answering > 8_000, "\(answering) bytes resident once the host answers")

        while harness.stats.sent < 900 { await harness.advance(by: 5) }
        let numbers = try await harness.collector.requests().filter { $0.status == 200 }.flatMap(\.events).compactMap(\.number)
        #expect(numbers == Array(0..<900))
    }

    private func residentBytes(_ harness: DeliveryHarness) async -> Int {
        await withCheckedContinuation { continuation in
            harness.client.perform { timeline in
                let store = timeline.find(DurableDestination.self)?.uploader?.store as? DiskEventStore
                continuation.resume(returning: store?.residentBytes ?? -1)
            }
        }
    }
}
