import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// `maxDiskBytes` bounds the files at every cap the options accept: seeded draws of a cap (from
/// the smallest accepted up), event sizes, commit rhythm and a pending batch pinned at the head
/// (the host down), the files measured after every commit against the cap plus one segment.
@Suite struct DiskCapSweepTests {
    private static func directoryBytes(_ directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            return total + size
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func theFilesStayWithinTheCapPlusASegmentAtEveryAcceptedCap(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let caps = [Defaults.minDiskBytes, Defaults.minDiskBytes + random.next(256 << 10), 256 << 10, Defaults.minDiskBytes + random.next(1 << 20)]
        for cap in caps {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var options = DiskLogOptions(directory: directory.url)
            options.maxBytes = cap
            options.maxEvents = 1_000_000
            let store = try DiskEventStore(options: options)
            let padding = 10 + random.next(2_000)
            let commitEvery = [1, 2, 1 + random.next(200)][random.next(3)]
            var largest = 0
            var pending: PendingBatch?
            let events = 4 * cap / (padding + 40)
            for index in 0..<events {
                let pad = String(repeating: "x", count: random.next(padding))
                _ = store.append(QueuedEvent(messageId: "m-\(index)", timestamp: Date(), payload: Array(#"{"n":\#(index),"p":"\#(pad)"}"#.utf8)))
                if index % commitEvery == commitEvery - 1 {
                    store.commit()
                    largest = max(largest, Self.directoryBytes(directory.url))
                }
                if pending == nil, index == events / 10 { pending = store.nextBatch(maxCount: 100, maxBytes: options.segmentBytes / 4) }
            }
            store.commit()
            largest = max(largest, Self.directoryBytes(directory.url))
            store.close()
            #expect(largest <= cap + options.segmentBytes, "seed \(seed): cap \(cap), segment \(options.segmentBytes), padding \(padding), commit every \(commitEvery): largest \(largest)")
        }
    }
}
