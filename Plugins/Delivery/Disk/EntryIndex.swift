/// The disk log's index: one ``DiskEventStore/Entry`` per queued event, in blocks of
/// ``blockSize`` entries allocated whole. The index never moves as it grows — a new block is
/// added, nothing is copied — and blocks the head has passed are freed whole
/// (``dropBlocks(_:)``), so the queue costs its entries plus less than a block, and every block
/// the allocator gets back is the size of the next one it hands out.
///
/// A block keeps each entry in a 16-byte ``Slot``: its sequence number as a distance from the
/// block's first, and its two lengths as the payload's and the record's overhead beyond it. An
/// entry those do not fit (a sequence far from the block's first, a payload of 16 MiB or more,
/// a message id of about 200 bytes or more) is kept whole beside its block, so every entry
/// reads back exactly as it was written.
struct EntryIndex: RandomAccessCollection, MutableCollection {
    typealias Entry = DiskEventStore.Entry

    /// Entries a block holds: 4,096 (64 KiB).
    static let blockSize = 1 << blockShift
    private static let blockShift = 12
    private static let blockMask = blockSize - 1

    /// An entry as its block keeps it.
    struct Slot {
        /// The sequence number less the block's ``Block/base``; ``outlier`` when the entry is
        /// kept whole in ``Block/outliers``.
        var sequenceDistance: UInt32
        var segment: UInt32
        var offset: UInt32
        /// The payload's byte count in the low 24 bits, the record's bytes beyond it in the
        /// high 8.
        var lengths: UInt32

        /// The distance that marks an entry kept whole.
        static let outlier = UInt32.max

        /// `entry` relative to `base`, or `nil` where a field does not fit.
        init?(_ entry: Entry, base: UInt64) {
            guard entry.sequence >= base, entry.sequence - base < UInt64(Self.outlier),
                entry.payloadCount >= 0, entry.payloadCount < 1 << 24,
                entry.length >= entry.payloadCount, entry.length - entry.payloadCount < 1 << 8
            else { return nil }
            sequenceDistance = UInt32(entry.sequence - base)
            segment = UInt32(truncatingIfNeeded: entry.segment)
            offset = UInt32(truncatingIfNeeded: entry.offset)
            lengths = UInt32(entry.payloadCount) | UInt32(entry.length - entry.payloadCount) << 24
        }

        /// The slot of an entry kept whole.
        static let keptWhole = Slot(sequenceDistance: outlier, segment: 0, offset: 0, lengths: 0)

        private init(sequenceDistance: UInt32, segment: UInt32, offset: UInt32, lengths: UInt32) {
            self.sequenceDistance = sequenceDistance
            self.segment = segment
            self.offset = offset
            self.lengths = lengths
        }

        /// The entry, given its block's base.
        func entry(base: UInt64) -> Entry {
            let payloadCount = Int32(lengths & 0xFF_FFFF)
            return Entry(
                sequence: base + UInt64(sequenceDistance), segment: UInt64(segment), offset: Int(offset),
                length: payloadCount + Int32(lengths >> 24), payloadCount: payloadCount)
        }
    }

    private struct Block {
        /// The sequence number of the block's first entry.
        let base: UInt64
        var slots: [Slot]
        /// Entries no slot can hold, by their place in the block.
        var outliers: [Int: Entry] = [:]

        init(base: UInt64) {
            self.base = base
            slots = []
            slots.reserveCapacity(EntryIndex.blockSize)
        }

        subscript(place: Int) -> Entry {
            get {
                let slot = slots[place]
                // A slot marked as an outlier always has its entry in `outliers`: both are set
                // together by the setter below.
                if slot.sequenceDistance == Slot.outlier, let whole = outliers[place] { return whole }
                return slot.entry(base: base)
            }
            set {
                if let slot = Slot(newValue, base: base) {
                    slots[place] = slot
                    if !outliers.isEmpty { outliers[place] = nil }
                } else {
                    slots[place] = Slot.keptWhole
                    outliers[place] = newValue
                }
            }
        }

        mutating func append(_ entry: Entry) {
            if let slot = Slot(entry, base: base) {
                slots.append(slot)
            } else {
                outliers[slots.count] = entry
                slots.append(Slot.keptWhole)
            }
        }
    }

    /// Every block but the last is full.
    private var blocks: [Block] = []
    /// The entries held.
    private(set) var count = 0

    /// An empty index.
    init() {}

    /// An index of `entries`, in order.
    init(_ entries: some Sequence<Entry>) {
        for entry in entries { append(entry) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Entry {
        get { blocks[position >> Self.blockShift][position & Self.blockMask] }
        set { blocks[position >> Self.blockShift][position & Self.blockMask] = newValue }
    }

    /// Entries the allocated blocks have room for.
    var capacity: Int { blocks.count * Self.blockSize }

    /// Adds `entry` at the end, in a new block when the last one is full.
    mutating func append(_ entry: Entry) {
        if count & Self.blockMask == 0 { blocks.append(Block(base: entry.sequence)) }
        blocks[blocks.count - 1].append(entry)
        count += 1
    }

    /// Frees the first `blockCount` blocks: every position moves down by `blockCount`
    /// × ``blockSize``.
    mutating func dropBlocks(_ blockCount: Int) {
        let dropped = Swift.min(blockCount, blocks.count)
        guard dropped > 0 else { return }
        blocks.removeFirst(dropped)
        count -= Swift.min(count, dropped * Self.blockSize)
    }
}
