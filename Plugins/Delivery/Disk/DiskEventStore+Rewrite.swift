import Foundation
import MetaRouterCore

/// When the files no longer match the queue: the disk went away for a while (a failed write or
/// open, a removed directory) and every queued event is written again; eviction left dead
/// segments behind a live one, and a summary of the removals lets them go; the pending batch
/// alone keeps the oldest segment, and it moves forward. Also where the log gives up its
/// descriptors between writes (``DescriptorBudget``).
extension DiskEventStore {
    /// While the log cannot be written.
    struct Fault {
        /// When the next attempt to restore the log may run (monotonic seconds).
        var nextAttempt: TimeInterval
        /// The wait after the next failed attempt.
        var backoff: TimeInterval
    }

    /// The first and the longest wait between attempts to restore a faulted log.
    static let restoreBackoff: ClosedRange<TimeInterval> = 0.25...30

    /// File descriptors the log holds: the directory lock and the open segments.
    package var openDescriptors: Int { closed ? 0 : files.openDescriptors + (lock.isHeld ? 1 : 0) }

    /// Closes the log's files and gives up its lock until the next write, while the process
    /// holds its descriptor budget and nothing waits to be written.
    func parkIfOverBudget() {
        guard !parked, !closed, fault == nil, buffer.isEmpty, pendingRemovals.isEmpty, DescriptorBudget.isOverBudget else { return }
        files.park()
        lock.release()
        parked = true
        DescriptorBudget.add(-2)
    }

    /// Takes the lock and opens the active segment again after ``parkIfOverBudget()``.
    func unpark() throws {
        guard parked else { return }
        try lock.reacquire(directory: options.directory)
        do {
            try files.reopenActive()
        } catch {
            lock.release()
            throw error
        }
        parked = false
        DescriptorBudget.add(2)
    }

    /// Whether records reach the files (no fault is waiting to be restored).
    package var isWritable: Bool { fault == nil }

    /// Events accepted that are neither delivered nor written to the log.
    var undurableCount: Int {
        fault == nil ? 0 : count
    }

    /// The log cannot be written: one log line for the whole episode; the queue stays in
    /// memory (within its caps) until ``restoreIfDue()`` rewrites it.
    func enterFault(_ error: any Error) {
        guard fault == nil else { return }
        fault = Fault(nextAttempt: clock.uptime() + Self.restoreBackoff.lowerBound, backoff: Self.restoreBackoff.lowerBound * 2)
        buffer = []
        pendingRemovals = []
        logger?.error(
            "sdk.event_log_error: event log: \(error); events stay queued in memory and the log is retried until it can be written")
    }

    /// A segment removed from the directory behind the log's back is written in vain: the log
    /// is rewritten as after any fault.
    func checkActiveSegment() {
        guard fault == nil, !closed, files.isWritable, !files.activeIsLinked else { return }
        enterFault(DiskStoreError.io("the active segment of \(options.directory.path) was removed"))
    }

    /// Tries to restore a faulted log once its backoff has passed: recreates the directory
    /// (never over a file that is in the way), takes the lock again if its file is gone, and
    /// writes every queued event to a fresh segment.
    func restoreIfDue() {
        guard var current = fault, clock.uptime() >= current.nextAttempt else { return }
        do {
            try StorageFiles.ensureDirectory(options.directory)
            try lock.ensureHeld(directory: options.directory)
            try rewriteEverything()
            fault = nil
            logger?.info("sdk.event_log_restored: event log writable again: \(count) queued event(s) written to a fresh segment")
        } catch {
            current.nextAttempt = clock.uptime() + current.backoff
            current.backoff = min(Self.restoreBackoff.upperBound, current.backoff * 2)
            fault = current
        }
    }

    /// Writes every queued event (and the pending batch's key) to a fresh segment, then
    /// deletes every other segment of the log: what they held is either in the new segment or
    /// gone from the queue.
    private func rewriteEverything() throws {
        buffer = []
        pendingRemovals = []
        if parked {
            // The lock is held again (``restoreIfDue()``); a fresh segment replaces the old one.
            files.park()
            parked = false
            DescriptorBudget.add(2)
        }
        try startSegment()
        var pendingEntries = pending?.entries ?? []
        let pendingEvents = pending?.batch.events ?? []
        var queued = Array(entries[head...])
        let moved = try rewrite(pendingEntries.indices, of: &pendingEntries) { index, _ in pendingEvents[index] }
            + rewrite(queued.indices, of: &queued) { [self] _, entry in residents[entry.sequence] }
        entries = EntryIndex(queued)
        head = 0
        if let current = pending {
            pending = (current.batch, pendingEntries)
            try files.append(LogRecord.batch(key: current.batch.idempotencyKey, ranges: LogRecord.ranges(pendingEntries.map(\.sequence))).encoded())
        }
        firstUncommittedSequence = nextSequence
        liveBySegment = [:]
        if let active = files.activeId, moved > 0 { liveBySegment[active] = moved }
        files.deleteAllButActive()
    }

    /// The pending batch, which eviction never takes, keeps the oldest segment on disk once
    /// every other event in it is gone. While the files are above the cap plus half a segment
    /// and the batch is all that is left there (and at most a quarter of a segment), its records
    /// are written again at the end of the active segment — same sequence numbers, its key
    /// after them — and the oldest segment is deleted. (Moving more than that left dead copies
    /// in the middle segments faster than it freed the oldest.)
    func movePendingOutOfOldestSegment() throws {
        guard files.totalBytes - options.segmentBytes / 2 > options.maxBytes, let current = pending,
            let oldest = files.segments.first, oldest.id != files.activeId
        else { return }
        var pendingEntries = current.entries
        let fromPending = pendingEntries.indices.filter { pendingEntries[$0].segment == oldest.id }
        guard !fromPending.isEmpty, (liveBySegment[oldest.id] ?? 0) == fromPending.count,
            fromPending.reduce(0, { $0 + Int(pendingEntries[$1].length) }) <= options.segmentBytes / 4
        else { return }
        let moved = try rewrite(fromPending, of: &pendingEntries) { index, _ in current.batch.events[index] }
        pending = (current.batch, pendingEntries)
        try files.append(LogRecord.batch(key: current.batch.idempotencyKey, ranges: LogRecord.ranges(pendingEntries.map(\.sequence))).encoded())
        liveBySegment[oldest.id] = 0
        if let active = files.activeId { liveBySegment[active, default: 0] += moved }
        deleteDeadSegments()
        if files.activeSize >= options.segmentBytes { try startSegment() }
    }

    /// Logs, in one `removed` record at the end of the active segment, every sequence number
    /// below the next that is not queued now, so that no removal depends on the segment that
    /// first logged it: any dead segment may then be deleted, not only a dead prefix. Only when
    /// every record is written (nothing buffered) and the queued events fall into at most 1,024
    /// runs of sequence numbers (they are the pending batch and the head onward: a few).
    /// Returns whether the summary was written.
    func logRemovalSummary() -> Bool {
        guard fault == nil, files.isWritable, buffer.isEmpty, pendingRemovals.isEmpty, nextSequence > 1 else { return false }
        let live = ((pending?.entries ?? []) + entries[head...]).map(\.sequence).sorted()
        var removed: [ClosedRange<UInt64>] = []
        var next: UInt64 = 1
        for sequence in live {
            if sequence > next { removed.append(next...(sequence - 1)) }
            next = max(next, sequence + 1)
            if removed.count > 1_024 { return false }
        }
        if next < nextSequence { removed.append(next...(nextSequence - 1)) }
        guard !removed.isEmpty else { return true }
        do {
            try files.append(LogRecord.removed(removed).encoded())
            return true
        } catch {
            enterFault(error)
            return false
        }
    }

    /// Appends fresh records for `list[indices]` to the active segment, in one write, and points
    /// the entries at them. Each event is `resident(index, entry)` or read back; one that cannot
    /// be read back is dropped (counted and logged). Returns how many were written.
    private func rewrite<Indices: Sequence<Int>>(
        _ indices: Indices, of list: inout [Entry], resident: (Int, Entry) -> QueuedEvent?
    ) throws -> Int {
        var bytes: [UInt8] = []
        var placed: [(index: Int, offset: Int, length: Int)] = []
        var unreadable: [Int] = []
        let stored = deviceTime.millis(atUptime: clock.uptime())
        for index in indices {
            guard let event = resident(index, list[index]) ?? readBack(list[index]) else {
                unreadable.append(index)
                continue
            }
            let start = bytes.count
            LogRecord.event(
                sequence: list[index].sequence, timestampMillis: Timestamp.epochMillis(event.timestamp), storedMillis: stored,
                messageId: event.messageId, payload: event.payload
            ).append(to: &bytes)
            placed.append((index, start, bytes.count - start))
        }
        let base = files.activeSize
        try files.append(bytes)
        guard let active = files.activeId else { return 0 }
        for place in placed {
            list[place.index].segment = active
            list[place.index].offset = base + place.offset
        }
        if !unreadable.isEmpty { dropUnreadable(unreadable, of: &list) }
        return placed.count
    }

    /// Takes entries whose records are gone out of `list` (the pending batch keeps them: its
    /// events are in memory).
    private func dropUnreadable(_ indices: [Int], of list: inout [Entry]) {
        let gone = indices.map { list[$0] }
        unreadableRecords += gone.count
        recordBytes -= gone.reduce(0) { $0 + Int($1.length) }
        for index in indices.reversed() { list.remove(at: index) }
        logger?.error("sdk.event_log_unreadable_records: event log: \(gone.count) queued event(s) could not be read back from disk and were dropped")
    }
}
