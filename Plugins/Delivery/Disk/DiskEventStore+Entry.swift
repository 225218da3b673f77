import MetaRouterCore

extension DiskEventStore {
    /// One queued event in the index: where its record is, and its bytes while resident. 32
    /// bytes, as every queued event has one: segment ids stay below
    /// ``SegmentFiles/maximumSegmentId`` and offsets below 4 GB (segments rotate at
    /// ``Options/segmentBytes``; recovery reads none above ``SegmentFiles/maximumReadBytes``),
    /// and the resident event is boxed, so only the few thousand resident ones pay for it.
    struct Entry {
        let sequence: UInt64
        private var segmentId: UInt32
        private var start: UInt32
        /// The record's bytes, header included.
        let length: Int32
        /// The event's encoded bytes (what the caps count).
        let payloadCount: Int32
        private var resident: ResidentEvent?

        init(sequence: UInt64, segment: UInt64, offset: Int, length: Int32, payloadCount: Int32, event: QueuedEvent?) {
            self.sequence = sequence
            segmentId = UInt32(truncatingIfNeeded: segment)
            start = UInt32(truncatingIfNeeded: offset)
            self.length = length
            self.payloadCount = payloadCount
            resident = event.map(ResidentEvent.init)
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

        /// The event, while it is resident; `nil` once it lives only on disk.
        var event: QueuedEvent? {
            get { resident?.event }
            set { resident = newValue.map(ResidentEvent.init) }
        }
    }

    /// A resident event, boxed so that an index entry without one costs a pointer.
    final class ResidentEvent {
        let event: QueuedEvent
        init(_ event: QueuedEvent) { self.event = event }
    }
}
