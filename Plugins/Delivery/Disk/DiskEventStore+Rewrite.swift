import Foundation
import MetaRouterCore

/// Rewriting queued events' records, for the two cases where the files no longer match the
/// queue: the disk went away for a while (a failed write or open, a removed directory), and
/// eviction left dead records pinned behind live ones beyond ``Options/maxBytes``.
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
        guard !parked, !closed, fault == nil, buffer.isEmpty, DescriptorBudget.isOverBudget else { return }
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
        if parked {
            // The lock is held again (``restoreIfDue()``); a fresh segment replaces the old one.
            files.park()
            parked = false
            DescriptorBudget.add(2)
        }
        try startSegment()
        var pendingEntries = pending?.entries ?? []
        let moved = try rewrite(pendingEntries.indices, of: &pendingEntries) + rewrite(head..<entries.count, of: &entries)
        if let current = pending {
            pending = (current.batch, pendingEntries)
            try files.append(LogRecord.batch(key: current.batch.idempotencyKey, ranges: LogRecord.ranges(pendingEntries.map(\.sequence))).encoded())
        }
        firstUncommittedSequence = nextSequence
        liveBySegment = [:]
        if let active = files.activeId, moved > 0 { liveBySegment[active] = moved }
        files.deleteAllButActive()
    }

    /// Keeps the log's files within ``Options/maxBytes`` plus one segment: while they are
    /// above it, the live records of the oldest segment (typically the pending batch, which
    /// eviction never takes) are written again to the active one, and it is deleted, with
    /// every dead segment behind it.
    func keepWithinDiskCap() throws {
        var rounds = files.segments.count
        while files.totalBytes > options.maxBytes + options.segmentBytes, rounds > 0, let oldest = files.segments.first,
            oldest.id != files.activeId
        {
            rounds -= 1
            var pendingEntries = pending?.entries ?? []
            let fromPending = pendingEntries.indices.filter { pendingEntries[$0].segment == oldest.id }
            let moved = try rewrite(fromPending, of: &pendingEntries)
                + rewrite((head..<entries.count).filter { entries[$0].segment == oldest.id }, of: &entries)
            if let current = pending, !fromPending.isEmpty {
                pending = (current.batch, pendingEntries)
                try files.append(LogRecord.batch(key: current.batch.idempotencyKey, ranges: LogRecord.ranges(pendingEntries.map(\.sequence))).encoded())
            }
            liveBySegment[oldest.id] = 0
            if let active = files.activeId { liveBySegment[active, default: 0] += moved }
            logger?.debug("sdk.event_log_compacted: event log over its cap: \(moved) live event(s) of \(oldest.url.lastPathComponent) moved forward")
            deleteDeadSegments()
            if files.activeSize >= options.segmentBytes { try startSegment() }
        }
    }

    /// Appends fresh records for `list[indices]` to the active segment, in one write, and points
    /// the entries at them. An event that cannot be read back is dropped (counted and logged).
    /// Returns how many were written.
    private func rewrite<Indices: Sequence<Int>>(_ indices: Indices, of list: inout [Entry]) throws -> Int {
        var bytes: [UInt8] = []
        var placed: [(index: Int, offset: Int, length: Int)] = []
        var unreadable: [Int] = []
        let stored = deviceTime.millis(atUptime: clock.uptime())
        for index in indices {
            guard let event = list[index].event ?? readBack(list[index]) else {
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
