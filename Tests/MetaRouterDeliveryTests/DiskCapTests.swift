import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// `maxDiskBytes` bounds the files, not only the queue: with the host down at full speed the
/// pending batch stays at the head (eviction never takes it), and the segments behind it must
/// not pile up.
@Suite struct DiskCapTests {
    /// The bytes of the files in `directory` at one moment: a walk during which no file came or
    /// went (each read size is then at most what it was at the walk's end). A walk that saw a
    /// segment deleted could add its size to the growth of the one written after the deletion,
    /// a total the directory never held; such a walk is read again.
    private static func directoryBytes(_ directory: URL) -> Int {
        func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() }
        while true {
            let before = names()
            var total = 0
            var complete = true
            for name in before {
                // `stat` alone: `attributesOfItem` also looks up the owner's and group's names,
                // reading the system's user and group files for each of the thousands of walks.
                var status = stat()
                guard stat(directory.appendingPathComponent(name).path, &status) == 0 else {
                    complete = false
                    break
                }
                total += Int(status.st_size)
            }
            if complete, names() == before { return total }
        }
    }

    @Test func aPinnedPendingBatchDoesNotLetTheFilesOutgrowTheCap() async throws {
        try await offThePool {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var options = DiskLogOptions(directory: directory.url)
            options.maxBytes = 256 * 1024
            options.segmentBytes = 32 * 1024
            options.maxEvents = 1_000_000
            let store = try DiskEventStore(options: options)
            var largest = 0
            var evicted = 0
            var pending: PendingBatch?
            for index in 0..<40_000 {
                let payload = Array(#"{"n":\#(index),"pad":"\#(String(filling: "x", count: 100))"}"#.utf8)
                evicted += store.append(QueuedEvent(messageId: "m-\(index)", timestamp: Date(), payload: payload)).count
                if index % 50 == 49 {
                    store.commit()
                    largest = max(largest, Self.directoryBytes(directory.url))
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

    /// At every cap the options accept: seeded draws of a cap (from the smallest accepted up),
    /// event sizes (up to a commit), commit rhythm and a pending batch pinned at the head (the
    /// host down), the files measured at every write — inside a commit too, between a write and
    /// the deletion it makes room for — against the cap plus one segment.
    @Test(arguments: Array(UInt64(1)...12))
    func theFilesStayWithinTheCapPlusASegmentAtEveryAcceptedCap(seed: UInt64) async throws {
        try await offThePool {
            var random = SeededRandom(seed: seed)
            let caps = [Defaults.minDiskBytes, Defaults.minDiskBytes + random.next(256 << 10), 256 << 10, Defaults.minDiskBytes + random.next(1 << 20)]
            for cap in caps {
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                var options = DiskLogOptions(directory: directory.url)
                options.maxBytes = cap
                options.maxEvents = 1_000_000
                let store = try DiskEventStore(options: options)
                let padding = 10 + random.next(seed % 2 == 0 ? 2_000 : options.commitBytes - 100)
                let commitEvery = [1, 2, 1 + random.next(200)][random.next(3)]
                var largest = 0
                var pending: PendingBatch?
                let events = 4 * cap / (padding + 40)
                for index in 0..<events {
                    let pad = String(filling: "x", count: random.next(padding))
                    _ = store.append(QueuedEvent(messageId: "m-\(index)", timestamp: Date(), payload: Array(#"{"n":\#(index),"p":"\#(pad)"}"#.utf8)))
                    if index % commitEvery == commitEvery - 1 {
                        store.commit()
                        largest = max(largest, Self.directoryBytes(directory.url))
                    }
                    // As the uploader asks (its byte limit is far above a small cap's segment).
                    if pending == nil, index == events / 2 { pending = store.nextBatch(maxCount: 100, maxBytes: Defaults.maxBatchBytes) }
                }
                store.commit()
                largest = max(largest, Self.directoryBytes(directory.url), store.files.largestTotalBytes)
                store.close()
                #expect(largest <= cap + options.segmentBytes, "seed \(seed): cap \(cap), segment \(options.segmentBytes), padding \(padding), commit every \(commitEvery): largest \(largest)")
            }
        }
    }

    /// At the smallest cap, events of several KB — up to a commit each, as three threads of an
    /// app sending large properties make them — with a commit every 1 to 30 events, a pending
    /// batch pinned early (the host answering 500) and the uploader asking again now and then:
    /// the files, counted at every write, never pass the cap plus a segment. With one commit
    /// kept back for the write a commit makes before its deletions, 6 of 200 seeds passed it by
    /// up to 166 bytes here, and a probe through the client by 3–5 KB.
    @Test func eventsOfSeveralKilobytesAtTheSmallestCapStayWithinTheBound() async throws {
        try await offThePool {
            var worst = Int.min
            var worstSeed: UInt64 = 0
            for seed in UInt64(1)...60 {
                var random = SeededRandom(seed: seed)
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                var options = DiskLogOptions(directory: directory.url)
                options.maxBytes = Defaults.minDiskBytes
                options.maxEvents = 1_000_000
                let store = try DiskEventStore(options: options)
                let pinnedAt = random.next(50)
                let context = 300 + random.next(800)
                let largestPad = [3_000, options.commitBytes - context - 60][random.next(2)]
                var commitEvery = 1 + random.next(30)
                var sinceCommit = 0
                for index in 0..<1_500 {
                    let body = #"{"context":"\#(String(filling: "c", count: context))","n":\#(index),"pad":"\#(String(filling: "y", count: random.next(largestPad)))"}"#
                    _ = store.append(QueuedEvent(messageId: "m-\(index)", timestamp: Date(), payload: Array(body.utf8)))
                    sinceCommit += 1
                    if sinceCommit >= commitEvery {
                        store.commit()
                        sinceCommit = 0
                        commitEvery = 1 + random.next(30)
                    }
                    if index == pinnedAt || index % 97 == 0 { _ = store.nextBatch(maxCount: 100, maxBytes: Defaults.maxBatchBytes) }
                }
                store.commit()
                let over = store.files.largestTotalBytes - (options.maxBytes + options.segmentBytes)
                if over > worst { (worst, worstSeed) = (over, seed) }
                store.close()
            }
            #expect(worst <= 0, "seed \(worstSeed): \(worst) bytes over the cap plus a segment")
        }
    }

    /// The largest caps the options accept (`Int.max` events and bytes), with room made for a
    /// replayed backlog too, are arithmetic that saturates, not a trap.
    @Test func capsAtIntMaxDoNotTrap() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DiskLogOptions(directory: directory.url)
        options.maxBytes = .max
        options.maxEvents = .max
        let store = try DiskEventStore(options: options)
        defer { store.close() }
        store.makeRoom(forMore: 1_000)
        for index in 0..<100 {
            #expect(store.append(QueuedEvent(messageId: "m-\(index)", timestamp: Date(), payload: Array(#"{"n":\#(index)}"#.utf8))).isEmpty)
        }
        store.commit()
        #expect(store.count == 100)
        let memory = InMemoryEventStore(capacity: .max)
        memory.makeRoom(forMore: 1_000)
        #expect(memory.append(QueuedEvent(messageId: "m", timestamp: Date(), payload: Array(#"{"n":1}"#.utf8))).isEmpty)
    }

    /// Through the client, at full speed for 60 s with the host down (connection refused, the
    /// breaker open): the events directory, measured from outside every 20 ms, never grows past
    /// `maxDiskBytes` plus one segment (a sixteenth of the cap). It
    /// brings its own load, so it runs in a step of its own (`METAROUTER_DISK_CAP_LOAD=1`,
    /// `.ci/run`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["METAROUTER_DISK_CAP_LOAD"] != nil))
    func theDiskStaysWithinItsCapAtFullSpeedWithTheHostDown() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = InitOptions(writeKey: "disk-cap-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 1)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.maxDiskBytes = 5 * 1024 * 1024
        options.maxDiskEvents = 1_000_000
        options.requestTimeoutSeconds = 2
        let analytics = MetaRouter.Analytics.instance(for: options)
        let events = directory.url.appendingPathComponent("events")
        let largest = try await offThePool { () -> Int in
            let stop = Locked(false)
            Thread.detachNewThread {
                var index = 0
                while !stop.current {
                    analytics.track("Full Speed", properties: ["n": index, "pad": "0123456789abcdef0123456789abcdef"])
                    index += 1
                }
            }
            var largest = 0
            let end = Date().addingTimeInterval(60)
            while Date() < end {
                largest = max(largest, Self.directoryBytes(events))
                usleep(20_000)
            }
            stop.withLock { $0 = true }
            return largest
        }
        let info = await analytics.getDebugInfo()
        await analytics.shutdown()
        #expect((info.stats.dropped[.queueFull] ?? 0) > 0, "the cap never evicted anything")
        // One segment: a sixteenth of the cap.
        print("disk cap: largest \(largest) bytes for a cap of \(options.maxDiskBytes) plus a segment of \(options.maxDiskBytes / 16)")
        #expect(largest <= options.maxDiskBytes + options.maxDiskBytes / 16, "the directory reached \(largest) bytes")
    }
}
