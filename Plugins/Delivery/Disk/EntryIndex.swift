/// The disk log's index: one ``DiskEventStore/Entry`` per queued event, in blocks of
/// ``blockSize`` entries allocated whole. The index never moves as it grows — a new block is
/// added, nothing is copied — and blocks the head has passed are freed whole
/// (``dropBlocks(_:)``), so the queue costs its entries plus less than a block, and every block
/// the allocator gets back is the size of the next one it hands out.
struct EntryIndex: RandomAccessCollection, MutableCollection {
    typealias Entry = DiskEventStore.Entry

    /// Entries a block holds: 4,096 (96 KiB).
    static let blockSize = 1 << blockShift
    private static let blockShift = 12
    private static let blockMask = blockSize - 1

    /// Every block but the last is full.
    private var blocks: [[Entry]] = []
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
        if count & Self.blockMask == 0 {
            var block: [Entry] = []
            block.reserveCapacity(Self.blockSize)
            blocks.append(block)
        }
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
