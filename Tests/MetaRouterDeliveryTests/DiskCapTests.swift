import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// `maxDiskBytes` bounds the files, not only the queue: with the host down at full speed the
/// pending batch stays at the head (eviction never takes it), and the segments behind it must
/// not pile up.
@Suite struct DiskCapTests {
    private func directoryBytes(_ directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            return total + size
        }
    }

    @Test func aPinnedPendingBatchDoesNotLetTheFilesOutgrowTheCap() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DiskEventStore.Options(directory: directory.url)
        options.maxBytes = 256 * 1024
        options.segmentBytes = 32 * 1024
        options.maxEvents = 1_000_000
        let store = try DiskEventStore(options: options)
        var largest = 0
        var evicted = 0
        var pending: PendingBatch?
        for index in 0..<40_000 {
            let payload = Array(#"{"n":\#(index),"pad":"\#(String(repeating: "x", count: 100))"}"#.utf8)
            evicted += store.append(QueuedEvent(messageId: "m-\(index)", timestamp: Date(), payload: payload)).count
            if index % 50 == 49 {
                store.commit()
                largest = max(largest, directoryBytes(directory.url))
            }
            // The host is down: the first batch is retried forever and never acknowledged.
            if pending == nil, index == 100 { pending = store.nextBatch(maxCount: 100, maxBytes: .max) }
        }
        store.close()
        #expect(evicted > 30_000)
        #expect(largest <= options.maxBytes + options.segmentBytes + DiskEventStore.commitThreshold, "largest \(largest)")

        let reopened = try DiskEventStore(options: options)
        defer { reopened.close() }
        #expect(reopened.recovery.corruptRecords == 0)
        let batch = try #require(reopened.nextBatch(maxCount: 100, maxBytes: .max))
        #expect(batch.idempotencyKey == pending?.idempotencyKey)
        #expect(batch.events.map(\.messageId) == pending?.events.map(\.messageId))
    }
}
