import Foundation
import MetaRouterCore

/// Which queued events the log keeps in memory. Every event is on disk once committed; memory
/// keeps an index entry per event and the encoded bytes of about ``Options/residentBytes``
/// of them. Spilling starts from the newest (sent last), so the head of the queue, which the
/// next batches take, stays resident; an event that is not resident is read back from its
/// segment, a read-ahead window at a time, and verified (checksum and sequence number)
/// before it is used.
extension DiskEventStore {
    /// Bytes read from a segment at once when an event is read back.
    static let readAheadBytes = 64 * 1024

    /// The event as memory keeps it: the encoder reserves room generously, and a resident
    /// payload may wait for hours, so it keeps only its own bytes. (The in-memory store copies
    /// payloads into its chunks, so the copy is made here, where it is needed.)
    static func resident(_ event: QueuedEvent) -> QueuedEvent {
        guard event.payload.capacity > event.payload.count + 64 else { return event }
        var kept = event
        kept.payload = [UInt8](unsafeUninitializedCapacity: event.payload.count) { buffer, initialized in
            initialized = buffer.initialize(fromContentsOf: event.payload)
        }
        return kept
    }

    /// Takes `count` entries off the head, each with its event (from ``residents`` or read back).
    /// Entries whose records cannot be read back are dropped from the log, counted and logged.
    func takeFromHead(_ count: Int) -> Taken {
        guard count > 0 else { return Taken() }
        var taken = Taken()
        taken.entries.reserveCapacity(count)
        taken.events.reserveCapacity(count)
        var unreadable: [Entry] = []
        for index in head..<(head + count) {
            let entry = entries[index]
            if let event = residents.removeValue(forKey: entry.sequence) {
                residentBytes -= Int(entry.payloadCount)
                taken.events.append(event)
            } else if let event = readBack(entry) {
                taken.events.append(event)
            } else {
                unreadable.append(entry)
                continue
            }
            taken.entries.append(entry)
        }
        head += count
        if !unreadable.isEmpty {
            unreadableRecords += unreadable.count
            forget(unreadable)
            logger?.error("sdk.event_log_unreadable_records: event log: \(unreadable.count) queued event(s) could not be read back from disk and were dropped")
        }
        return taken
    }

    /// Puts taken entries back at the head, their events resident again: a batch released for
    /// another try, or one recovery could not restore whole.
    func returnToHead(_ taken: Taken) {
        if taken.entries.count <= head {
            // Into the slots the head has passed (where they were taken from, unless a block was
            // freed since).
            head -= taken.entries.count
            for (offset, entry) in taken.entries.enumerated() { entries[head + offset] = entry }
        } else {
            entries = EntryIndex(taken.entries + entries[head...])
            head = 0
        }
        for (entry, event) in zip(taken.entries, taken.events) {
            residents[entry.sequence] = event
            residentBytes += Int(entry.payloadCount)
        }
    }

    /// After a commit wrote the buffer at `base` of the active segment: the records it held
    /// get their file offsets.
    func placeCommittedRecords(at base: Int) {
        var index = entries.count - 1
        while index >= head, entries[index].sequence >= firstUncommittedSequence {
            entries[index].offset += base
            index -= 1
        }
        if var current = pending {
            for index in current.entries.indices where current.entries[index].sequence >= firstUncommittedSequence {
                current.entries[index].offset += base
            }
            pending = current
        }
        firstUncommittedSequence = nextSequence
    }

    /// What may stay resident: ``Options/residentBytes``, and an eighth of it while the host
    /// is failing — nothing leaves until it answers, so the queue waits on disk, and the head's
    /// next batch or two are all that memory needs.
    var residentBudget: Int { hostFailing ? options.residentBytes / 8 : options.residentBytes }

    /// Told whether the host is failing (a retry waits). When it starts failing, the newest
    /// committed events beyond the smaller budget are let go at once.
    package func noteHost(failing: Bool) {
        guard failing != hostFailing else { return }
        hostFailing = failing
        guard failing, fault == nil, residentBytes > residentBudget else { return }
        for sequence in residents.keys.sorted(by: >) where sequence < firstUncommittedSequence {
            guard residentBytes > residentBudget else { break }
            if let event = residents.removeValue(forKey: sequence) { residentBytes -= event.payload.count }
        }
        shrinkResidentTable()
    }

    /// Drops the in-memory bytes of the newest committed events while more than the budget is
    /// resident. Stops at the first event already spilled: older ones are nearer the head.
    func spillBeyondBudget() {
        var index = entries.count - 1
        while residentBytes > residentBudget, index >= head, residents.removeValue(forKey: entries[index].sequence) != nil {
            residentBytes -= Int(entries[index].payloadCount)
            index -= 1
        }
        shrinkResidentTable()
    }

    /// A fault keeps every event resident; once they are spilled, the table's room goes too.
    private func shrinkResidentTable() {
        guard residents.capacity > 4 * max(residents.count, EntryIndex.blockSize) else { return }
        var smaller = [UInt64: QueuedEvent](minimumCapacity: residents.count)
        for (sequence, event) in residents { smaller[sequence] = event }
        residents = smaller
    }

    /// The event of a committed entry, read back from its segment and verified.
    func readBack(_ entry: Entry) -> QueuedEvent? {
        let length = Int(entry.length)
        let end = entry.offset + length
        if let window = readAhead, window.segment == entry.segment, entry.offset >= window.offset,
            end <= window.offset + window.bytes.count
        {
            return decode(entry, in: window.bytes, at: entry.offset - window.offset)
        }
        readAhead = nil
        guard let bytes = files.read(id: entry.segment, offset: entry.offset, count: max(length, Self.readAheadBytes)) else {
            return nil
        }
        readAhead = (entry.segment, entry.offset, bytes)
        return decode(entry, in: bytes, at: 0)
    }

    private func decode(_ entry: Entry, in bytes: [UInt8], at offset: Int) -> QueuedEvent? {
        guard case .record(.event(let sequence, let millis, _, let messageId, let payload), _) = SegmentReader.parse(bytes[...], at: offset),
            sequence == entry.sequence
        else { return nil }
        return QueuedEvent(messageId: messageId, timestamp: Date(timeIntervalSince1970: Double(millis) / 1000), payload: payload)
    }
}
