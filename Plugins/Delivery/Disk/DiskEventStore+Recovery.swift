import Foundation
import MetaRouterCore

extension DiskEventStore {
    /// Reads every segment one at a time, rebuilds the queue's index, resumes the device time,
    /// applies age and caps, and starts a fresh segment for new records. Survivors stay in the
    /// segments that hold them and are read back when batched, so opening a large backlog does
    /// not hold it all in memory; what age and caps dropped is logged as removed, so it stays
    /// dropped.
    func recover() throws {
        var report = RecoveryReport()
        var previous = DeviceTime.Previous()
        var found = RecoveredEvents()
        var lastBatch: (key: String, sequences: [UInt64])?
        var readable: [SegmentFiles.Segment] = []
        let listing = files.existing()
        for name in listing.ignored {
            report.ignoredFiles += 1
            report.problems.append("\(name) does not carry an id this log writes; left alone")
        }
        for segment in listing.segments {
            let bytes: [UInt8]
            switch files.read(segment) {
            case .success(let read): bytes = read
            case .failure(let problem):
                report.unreadableFiles += 1
                report.problems.append("\(problem.description); skipped and left in place")
                continue
            }
            let contents = SegmentReader.read(bytes)
            report.corruptRecords += contents.corrupt
            report.tornBytes += contents.tornBytes
            if contents.unsupportedVersion {
                report.unsupportedFiles += 1
                continue
            }
            var sized = segment
            sized.size = bytes.count
            readable.append(sized)
            for located in contents.records {
                switch located.record {
                case .event(let sequence, _, let millis, _, let payload):
                    let entry = Entry(
                        sequence: sequence, segment: segment.id, offset: located.offset, length: Int32(located.length),
                        payloadCount: Int32(clamping: payload.count))
                    found.add(entry, millis: millis)
                    nextSequence = max(nextSequence, sequence + 1)
                    previous.latestMillis = max(previous.latestMillis ?? millis, millis)
                case .clock(let boot, let offset, let wallOffset):
                    previous.clock = DeviceTime(boot: boot.isEmpty ? nil : boot, offsetMillis: offset, wallOffsetMillis: wallOffset)
                case .removed(let ranges):
                    for range in ranges { found.remove(range) }
                case .batch(let key, let ranges):
                    // Expanded only when it could name queued events: the ranges come from disk.
                    let total = ranges.reduce(0) { $0 + $1.count }
                    lastBatch = total <= found.count ? (key, ranges.flatMap { Array($0) }) : nil
                }
            }
        }
        var ordered = found.ordered()
        deviceTime = DeviceTime.resume(
            previous, boot: (clock as? any BootSessionClock)?.bootSession, wall: clock.now(), uptime: clock.uptime())
        let maxAgeMillis = options.maxAge.isFinite ? Int64(max(0, min(options.maxAge, 1e12)) * 1000) : Int64.max / 2
        let oldest = deviceTime.millis(atUptime: clock.uptime()).subtractingReportingOverflow(maxAgeMillis).partialValue
        // Two passes over the records found, and no copy of them: what age keeps, then what the
        // caps keep of that (the oldest go), straight into the index.
        var dropped: [UInt64] = []
        var keptCount = 0
        var bytes = 0
        for item in ordered {
            if item.millis >= oldest {
                keptCount += 1
                bytes += Int(item.entry.length)
            } else {
                dropped.append(item.entry.sequence)
            }
        }
        report.expired = dropped.count
        var dropFront = 0
        files.adopt(readable)
        try startSegment()
        entries = EntryIndex()
        for item in ordered where item.millis >= oldest {
            if keptCount - dropFront > options.maxEvents || bytes > options.recordBudget {
                bytes -= Int(item.entry.length)
                dropped.append(item.entry.sequence)
                dropFront += 1
                continue
            }
            entries.append(item.entry)
            liveBySegment[item.entry.segment, default: 0] += 1
        }
        ordered = []
        report.overCap = dropFront
        report.recovered = keptCount - dropFront
        recordBytes = bytes
        firstUncommittedSequence = nextSequence
        if !dropped.isEmpty { buffer += LogRecord.removed(LogRecord.ranges(dropped)).encoded() }
        if let lastBatch { restorePendingBatch(key: lastBatch.key, sequences: lastBatch.sequences) }
        try files.append(buffer)
        buffer.removeAll()
        files.sync()
        deleteDeadSegments()
        recovery = report
        MemoryRelease.returnFreedMemory()
    }

    /// The batch that was in flight when the log was last closed becomes the pending batch
    /// again, with its key, when its events are still the head of the queue: a retry after a
    /// crash carries the same `Idempotency-Key`.
    private func restorePendingBatch(key: String, sequences: [UInt64]) {
        guard !sequences.isEmpty, sequences.count <= entries.count,
            zip(sequences, entries).allSatisfy({ $0 == $1.sequence })
        else { return }
        let taken = takeFromHead(sequences.count)
        // Some could not be read back: the rest go back to the head and form a new batch.
        guard taken.entries.count == sequences.count else { return returnToHead(taken) }
        pending = (PendingBatch(idempotencyKey: key, events: taken.events), taken.entries)
    }
}
