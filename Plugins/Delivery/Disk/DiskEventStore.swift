import Foundation
import MetaRouterCore

/// Where and how much.
package struct DiskLogOptions: Sendable {
    /// The directory the log owns (created 0700).
    package var directory: URL
    /// Events kept at most; the oldest go first.
    package var maxEvents = Defaults.maxDiskEvents
    /// Bytes the log's files hold at most, plus one segment (a sixteenth of this, between
    /// 16 KiB and 1 MiB), while the pending batch is at most a quarter of a segment; the oldest
    /// events go first (`Docs/Persistence.md`).
    package var maxBytes = Defaults.maxDiskBytes
    /// Events that have been on this device longer than this — measured from when each was
    /// written to the log, not by its timestamp, and not by the wall clock alone — are
    /// dropped when the log is opened.
    package var maxAge = Defaults.maxDiskAgeSeconds
    /// A new segment is started once the active one is this large: a sixteenth of
    /// ``maxBytes`` (16 KiB to 1 MiB) unless set.
    package var segmentBytes: Int {
        get { fixedSegmentBytes ?? min(1 << 20, max(16 << 10, maxBytes / 16)) }
        set { fixedSegmentBytes = newValue }
    }
    private var fixedSegmentBytes: Int?
    /// Records gathered before a commit writes them: at most a quarter of a segment (and an
    /// eighth of a tiny cap).
    var commitBytes: Int { max(1, min(DiskEventStore.commitThreshold, segmentBytes / 4, maxBytes / 8)) }
    /// What the queued events' records may take: ``maxBytes`` less two commits and a quarter of
    /// a segment — the active segment may run a commit past its size, a commit writes removal,
    /// clock and batch records too, and the oldest segment holds dead records until its last
    /// live one goes — so the files stay within ``maxBytes`` plus a segment. (A quarter of the
    /// cap at most is held back, for tiny caps and segments set larger than the cap.)
    var recordBudget: Int { max(0, maxBytes - min(maxBytes / 4, 2 * commitBytes + segmentBytes / 4)) }
    /// Encoded event bytes kept in memory as well as on disk (the oldest queued events and
    /// those just written); the other events are read back from disk when needed.
    package var residentBytes = 1024 * 1024

    /// Options for `directory` with the defaults.
    ///
    /// - Parameter directory: The directory the log's files live in; the log deletes only files it created.
    package init(directory: URL) { self.directory = directory }
}

/// The durable queue: an append-only log of checksummed records in segment files, so no event
/// the executor accepted is lost to a crash, a `kill -9` or an outage.
///
/// - Every accepted event is appended as a record; writes are grouped (``commit()`` once per
///   executor drain cycle: one `write` for many events) and `fsync`ed at flush boundaries and on
///   shutdown (``sync()``).
/// - Events leave the log only when their batch was accepted or dropped for good (a `removed`
///   record); a batch's `Idempotency-Key` is logged with its events, so a batch interrupted by a
///   crash is re-sent after restart with the same key.
/// - Opening recovers the log: damaged records and torn tails are skipped and counted, events
///   on this device for longer than ``Options/maxAge`` (``DeviceTime``) are dropped, caps are
///   applied oldest first, and the survivors stay where they are on disk; new records go to a
///   fresh segment.
/// - Segments whose events are all gone are deleted; only files this store names are touched.
/// - Memory holds an index entry per queued event (16 bytes) and the encoded bytes of at most
///   ``Options/residentBytes`` of them; the rest are read back from their segment when they
///   are batched, evicted or removed (see `DiskEventStore+Residency.swift`).
///
/// With the disk on, the queue holds up to ``Options/maxEvents`` events, all of them on disk.
package final class DiskEventStore: EventStore {
    package typealias Options = DiskLogOptions

    /// What opening the log found.
    package struct RecoveryReport: Sendable, Hashable {
        /// Events handed back to the queue.
        package var recovered = 0
        /// Events dropped for being older than `maxAge`.
        package var expired = 0
        /// Events dropped by the caps.
        package var overCap = 0
        /// Damaged records skipped.
        package var corruptRecords = 0
        /// Bytes of torn tails ignored.
        package var tornBytes = 0
        /// Segment files from a newer format version, left untouched.
        package var unsupportedFiles = 0
        /// Segment files that could not be read (permissions, not a regular file, too large),
        /// left in place.
        package var unreadableFiles = 0
        /// Files named like segments whose id this log never writes, left alone.
        package var ignoredFiles = 0
        /// What was wrong with each file skipped, in words.
        package var problems: [String] = []

        /// Whether recovery found anything worth a log line.
        package var isNoteworthy: Bool {
            recovered + expired + overCap + corruptRecords + tornBytes + unsupportedFiles + unreadableFiles + ignoredFiles > 0
        }
    }

    let options: Options
    let files: SegmentFiles
    let lock: DirectoryLock
    let logger: AnalyticsLogger?
    let clock: any AnalyticsClock
    /// The time records are stamped with, fixed when the log is opened.
    var deviceTime = DeviceTime(boot: nil, offsetMillis: 0, wallOffsetMillis: 0)
    var entries = EntryIndex()
    /// The first queued entry; those before it are delivered or evicted.
    var head = 0
    /// The events of `entries[head...]` kept in memory as well as on disk (see
    /// `DiskEventStore+Residency.swift`), by sequence number; the pending batch holds its own.
    var residents: [UInt64: QueuedEvent] = [:]
    var pending: (batch: PendingBatch, entries: [Entry])?
    var nextSequence: UInt64 = 1
    /// Bytes of the queued events' records (what ``Options/maxBytes`` counts).
    var recordBytes = 0
    /// Payload bytes of the resident events in `entries[head...]` (the pending batch's aside).
    var residentBytes = 0
    /// Whether the host is failing, as the uploader last said (``noteHost(failing:)``).
    var hostFailing = false
    /// The first sequence number whose record is still in `buffer`.
    var firstUncommittedSequence: UInt64 = 1
    var liveBySegment: [UInt64: Int] = [:]
    /// Room beyond ``DiskLogOptions/maxEvents`` for a backlog arriving at once.
    var extraRoom = 0
    /// Bytes read ahead from one segment, serving the reads of the entries that follow.
    var readAhead: (segment: UInt64, offset: Int, bytes: [UInt8])?
    /// Records gathered since the last commit.
    var buffer: [UInt8] = []
    /// Events that left the queue since the last commit, logged as one `removed` record at the
    /// commit: eviction takes one event per call while the queue is full, and a record per
    /// call would add a sixth to what the disk holds.
    var pendingRemovals: [UInt64] = []
    /// Set while the log cannot be written: records are not gathered, events stay resident,
    /// and the log is rewritten whole once it can be written again.
    var fault: Fault?
    /// The log's files (its lock too) are closed between writes: the process holds its
    /// descriptor budget (``DescriptorBudget``).
    var parked = false
    var closed = false

    /// What opening the log found.
    package internal(set) var recovery = RecoveryReport()

    /// Queued events whose records could not be read back from disk while the log was open
    /// (a segment changed or removed behind the log's back): dropped, counted and logged.
    package internal(set) var unreadableRecords = 0

    /// Buffered record bytes that are written at once, mid-cycle.
    static let commitThreshold = 64 * 1024

    /// Opens (and recovers) the log in `options.directory`, or throws when another process
    /// holds it or it cannot be created. `clock` measures how long records have been on the
    /// device (``Options/maxAge``).
    package init(options: Options, clock: any AnalyticsClock = SystemClock(), logger: AnalyticsLogger? = nil) throws {
        self.options = options
        self.logger = logger
        self.clock = clock
        try StorageFiles.ensureDirectory(options.directory)
        lock = try DirectoryLock(directory: options.directory)
        files = SegmentFiles(directory: options.directory)
        try recover()
        DescriptorBudget.add(2)
        parkIfOverBudget()
    }

    deinit {
        if !closed, !parked { DescriptorBudget.add(-2) }
    }

    /// Events held, the pending batch included.
    package var count: Int { entries.count - head + (pending?.entries.count ?? 0) }

    /// Bytes written to segment files since the log was opened.
    package var bytesWritten: Int { files.bytesWritten }

    /// Whether records are waiting for ``commit()`` (or the log waits to be restored).
    package var hasUncommittedRecords: Bool { !buffer.isEmpty || !pendingRemovals.isEmpty || fault != nil }

    /// Logs and queues the event, evicting the oldest non-pending ones beyond the caps.
    package func append(_ event: QueuedEvent) -> [QueuedEvent] {
        let size = LogRecord.eventSize(messageId: event.messageId, payloadCount: event.payload.count)
        var evictedCount = 0
        var retained = recordBytes
        while head + evictedCount < entries.count,
            count - evictedCount >= eventLimit || retained + size > options.recordBudget
        {
            retained -= Int(entries[head + evictedCount].length)
            evictedCount += 1
        }
        evictedCount += evictionForFileBound(adding: size, evicted: evictedCount)
        let evicted = takeFromHead(evictedCount)
        forget(evicted.entries)
        if count >= eventLimit || recordBytes + size > options.recordBudget {
            return evicted.events + [event]
        }
        let sequence = nextSequence
        nextSequence += 1
        let segment = files.activeId ?? 0
        let start = buffer.count
        if fault == nil {
            LogRecord.event(
                sequence: sequence, timestampMillis: Timestamp.epochMillis(event.timestamp),
                storedMillis: deviceTime.millis(atUptime: clock.uptime()), messageId: event.messageId, payload: event.payload
            ).append(to: &buffer)
        }
        entries.append(Entry(sequence: sequence, segment: segment, offset: start, length: Int32(size), payloadCount: Int32(clamping: event.payload.count)))
        residents[sequence] = Self.resident(event)
        liveBySegment[segment, default: 0] += 1
        recordBytes += size
        residentBytes += event.payload.count
        // A backlog is written as it is worked through, not only at the end of the drain
        // cycle: that bounds the buffer and the time an event waits for `write(2)`.
        if buffer.count >= options.commitBytes { commit() }
        compactMemory()
        return evicted.events
    }

    /// The pending batch, or a new one from the head (its key is logged with it).
    package func nextBatch(maxCount: Int, maxBytes: Int) -> PendingBatch? {
        // A closed log belongs to whoever opens it next: its batches are theirs to key.
        guard !closed else { return nil }
        if let pending { return pending.batch }
        while head < entries.count {
            let taken = takeFromHead(batchCount(maxCount: maxCount, maxBytes: maxBytes))
            guard !taken.entries.isEmpty else { continue }
            let batch = PendingBatch(idempotencyKey: RandomIdentifier.uuidString(lowercase: true), events: taken.events)
            pending = (batch, taken.entries)
            if fault == nil {
                buffer += LogRecord.batch(key: batch.idempotencyKey, ranges: LogRecord.ranges(taken.entries.map(\.sequence))).encoded()
            }
            compactMemory()
            return batch
        }
        return nil
    }

    /// The events after the pending batch that the next one would take (read back from the
    /// segments where they are not resident; an unreadable one ends the look ahead).
    package func upcoming(maxCount: Int, maxBytes: Int) -> [QueuedEvent] {
        var events: [QueuedEvent] = []
        for entry in entries[head..<(head + batchCount(maxCount: maxCount, maxBytes: maxBytes))] {
            guard let event = residents[entry.sequence] ?? readBack(entry) else { break }
            events.append(event)
        }
        return events
    }

    /// How many events a batch taken from `head` would hold: at most `maxCount` events and
    /// `maxBytes` payload bytes — and a quarter of a segment, so the pending batch, which
    /// eviction never takes, can be moved out of the oldest segment and the files keep their
    /// bound — always at least one when there is one.
    private func batchCount(maxCount: Int, maxBytes: Int) -> Int {
        let maxBytes = min(maxBytes, options.segmentBytes / 4)
        var taking = 0
        var bytes = 0
        while head + taking < entries.count, taking < max(1, maxCount) {
            let size = Int(entries[head + taking].payloadCount)
            if taking > 0, bytes + size > maxBytes { break }
            bytes += size
            taking += 1
        }
        return taking
    }

    /// The pending batch is done with: its events leave the log.
    package func acknowledge(_ batch: PendingBatch) {
        guard let current = pending, current.batch.idempotencyKey == batch.idempotencyKey else { return }
        pending = nil
        extraRoom = max(0, extraRoom - current.entries.count)
        forget(current.entries)
    }


    /// The pending batch's events go back to the head, to be batched again under a new key.
    package func release(_ batch: PendingBatch) {
        guard let current = pending, current.batch.idempotencyKey == batch.idempotencyKey else { return }
        pending = nil
        returnToHead(Taken(entries: current.entries, events: current.batch.events))
    }

    /// Empties the queue and deletes the segment files, starting a fresh one. A closed log
    /// belongs to whoever opens it next: nothing is removed, and no file touched.
    package func removeAll() -> [QueuedEvent] {
        guard !closed else { return [] }
        let removed = (pending?.batch.events ?? []) + takeFromHead(entries.count - head).events
        entries = EntryIndex()
        head = 0
        residents = [:]
        pending = nil
        recordBytes = 0
        residentBytes = 0
        liveBySegment = [:]
        buffer = []
        pendingRemovals = []
        firstUncommittedSequence = nextSequence
        readAhead = nil
        if fault == nil {
            do {
                try startSegment()
                files.deleteAllButActive()
            } catch {
                enterFault(error)
            }
        }
        return removed
    }

    /// Writes and `fsync`s what is buffered, closes the segment and gives up the directory's
    /// lock, so another instance (in this process or another) can open the log.
    package func close() {
        guard !closed else { return }
        sync()
        if var current = fault {
            // The last chance to persist what is queued: no backoff.
            current.nextAttempt = -.infinity
            fault = current
            sync()
        }
        files.closeActive()
        lock.release()
        if !parked { DescriptorBudget.add(-2) }
        closed = true
    }

    /// Commits, then `fsync`s the active segment on a background queue (through a duplicate
    /// descriptor, so rolling the segment meanwhile is safe). Requests made while one is
    /// pending are folded into it.
    package func requestSync() {
        commit()
        checkActiveSegment()
        files.syncInBackground()
    }

    /// Writes the records gathered since the last commit in one go (the removals gathered since
    /// too, as one record); rolls segments and deletes dead ones. While the log is faulted,
    /// tries to restore it instead (with backoff).
    package func commit() {
        guard !closed else { return }
        if fault != nil { return restoreIfDue() }
        if !pendingRemovals.isEmpty {
            buffer += LogRecord.removed(LogRecord.ranges(pendingRemovals)).encoded()
            pendingRemovals.removeAll(keepingCapacity: true)
        }
        guard !buffer.isEmpty else { return }
        do {
            try unpark()
            let base = files.activeSize
            try files.append(buffer)
            buffer.removeAll(keepingCapacity: true)
            placeCommittedRecords(at: base)
            spillBeyondBudget()
            if files.activeSize >= options.segmentBytes { try startSegment() }
            deleteDeadSegments()
            try movePendingOutOfOldestSegment()
            parkIfOverBudget()
        } catch {
            enterFault(error)
        }
    }

    /// Commits and flushes the active segment to stable storage.
    package func sync() {
        commit()
        checkActiveSegment()
        files.sync()
    }

    /// Starts a new segment with the device time its records are stamped with.
    func startSegment() throws {
        try unpark()
        try files.startSegment(id: nextSequence)
        try files.append(deviceTime.record.encoded())
    }

    func forget(_ removed: [Entry]) {
        guard !removed.isEmpty else { return }
        for entry in removed {
            liveBySegment[entry.segment, default: 1] -= 1
            recordBytes -= Int(entry.length)
        }
        if fault == nil { pendingRemovals += removed.map(\.sequence) }
    }

    /// Frees the index's blocks the head has passed, so a queue that drained gives its memory
    /// back (nothing is copied).
    func compactMemory() {
        let passed = head / EntryIndex.blockSize
        guard passed > 0 else { return }
        entries.dropBlocks(passed)
        head -= passed * EntryIndex.blockSize
    }
}
