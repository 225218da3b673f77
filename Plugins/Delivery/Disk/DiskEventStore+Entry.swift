import MetaRouterCore

extension DiskEventStore {
    /// One queued event in the index: where its record is (the index keeps it in 16 bytes,
    /// ``EntryIndex/Slot``). Segment ids and offsets are 32 bits: segment ids stay below
    /// ``SegmentFiles/maximumSegmentId`` and offsets below 4 GB (segments rotate at
    /// ``Options/segmentBytes``; recovery reads none above ``SegmentFiles/maximumReadBytes``).
    /// The few thousand events also kept in memory are in ``DiskEventStore/residents``, by
    /// sequence number, not in their entries.
    struct Entry {
        let sequence: UInt64
        private var segmentId: UInt32
        private var start: UInt32
        /// The record's bytes, header included.
        let length: Int32
        /// The event's encoded bytes (what the caps count).
        let payloadCount: Int32

        init(sequence: UInt64, segment: UInt64, offset: Int, length: Int32, payloadCount: Int32) {
            self.sequence = sequence
            segmentId = UInt32(truncatingIfNeeded: segment)
            start = UInt32(truncatingIfNeeded: offset)
            self.length = length
            self.payloadCount = payloadCount
        }

        /// The segment the record is in.
        var segment: UInt64 {
            get { UInt64(segmentId) }
            set { segmentId = UInt32(truncatingIfNeeded: newValue) }
        }

        /// Where the record starts in its segment; until it is committed, where it starts in
        /// the write buffer (``DiskEventStore/commit()`` adds the file offset).
        var offset: Int {
            get { Int(start) }
            set { start = UInt32(truncatingIfNeeded: newValue) }
        }
    }

    /// Entries taken off the head of the queue, each with its event (kept in memory or read
    /// back), in the same order.
    struct Taken {
        var entries: [Entry] = []
        var events: [QueuedEvent] = []
    }
}
