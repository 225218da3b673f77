import Foundation
import MetaRouterCore

extension DiskEventStore {
    /// Reads every segment, rebuilds the queue, applies age and caps, and rewrites the
    /// survivors into a fresh segment.
    func recover(now: Date) throws {
        var report = RecoveryReport()
        var events: [UInt64: (millis: Int64, event: QueuedEvent)] = [:]
        var lastBatch: (key: String, sequences: [UInt64])?
        var readable: [SegmentFiles.Segment] = []
        let found = files.existing()
        for name in found.ignored {
            report.ignoredFiles += 1
            report.problems.append("\(name) does not carry an id this log writes; left alone")
        }
        for segment in found.segments {
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
            readable.append(segment)
            for record in contents.records {
                switch record {
                case .event(let sequence, let millis, let messageId, let payload):
                    events[sequence] = (millis, QueuedEvent(
                        messageId: messageId, timestamp: Date(timeIntervalSince1970: Double(millis) / 1000), payload: payload))
                    nextSequence = max(nextSequence, sequence + 1)
                case .removed(let ranges):
                    for range in ranges {
                        if range.count < events.count {
                            for sequence in range { events[sequence] = nil }
                        } else {
                            events = events.filter { !range.contains($0.key) }
                        }
                    }
                case .batch(let key, let ranges):
                    // Expanded only when it could name queued events: the ranges come from disk.
                    let total = ranges.reduce(0) { $0 + $1.count }
                    lastBatch = total <= events.count ? (key, ranges.flatMap { Array($0) }) : nil
                }
            }
        }
        var ordered = events.sorted { $0.key < $1.key }
        let oldest = Timestamp.epochMillis(now.addingTimeInterval(-options.maxAge))
        let fresh = ordered.filter { $0.value.millis >= oldest }
        report.expired = ordered.count - fresh.count
        ordered = fresh
        var bytes = ordered.reduce(0) { $0 + $1.value.event.payload.count }
        var dropFront = 0
        while ordered.count - dropFront > options.maxEvents || bytes > options.maxBytes, dropFront < ordered.count {
            bytes -= ordered[dropFront].value.event.payload.count
            dropFront += 1
        }
        report.overCap = dropFront
        ordered.removeFirst(dropFront)
        report.recovered = ordered.count

        files.adopt(readable)
        try files.startSegment(id: nextSequence)
        let segment = files.activeId ?? 0
        var rewrite: [UInt8] = []
        for (sequence, value) in ordered {
            rewrite += LogRecord.event(
                sequence: sequence, timestampMillis: value.millis, messageId: value.event.messageId, payload: value.event.payload
            ).encoded()
            entries.append(Entry(sequence: sequence, segment: segment, event: value.event))
        }
        liveBySegment[segment] = entries.count
        payloadBytes = bytes
        if let lastBatch, !lastBatch.sequences.isEmpty, lastBatch.sequences.count <= entries.count,
            zip(lastBatch.sequences, entries).allSatisfy({ $0 == $1.sequence })
        {
            let taken = Array(entries.prefix(lastBatch.sequences.count))
            pending = (PendingBatch(idempotencyKey: lastBatch.key, events: taken.map(\.event)), taken)
            head = taken.count
            rewrite += LogRecord.batch(key: lastBatch.key, ranges: LogRecord.ranges(lastBatch.sequences)).encoded()
        }
        try files.append(rewrite)
        files.sync()
        files.deleteAllButActive()
        recovery = report
    }
}
