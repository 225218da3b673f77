/// Empty chunks for ``PackedTrackRun``s, their pages already written once, kept in the ingress
/// (under its lock). A burst that outruns the executor grows its runs by a chunk every few
/// hundred calls; a chunk fresh from the allocator is memory the kernel hands over page by page,
/// one call in about thirty paying for a page fault while it holds the ingress's lock. Instead,
/// the executor gives back each chunk it has read and, each time it looks for prompt work (every
/// 64 commands or packed calls), adds chunks it has touched itself for what the callers are
/// expected to pack before its next look — the same care ``PipelineExecutor`` takes of the
/// ingress's buffer. The pool is emptied when the executor goes idle.
struct PackedChunkPool {
    /// The most bytes the pool keeps (1 MiB: 32 chunks).
    static let capacityBytes = 1024 * 1024
    private static let maxChunks = capacityBytes / PackedTrackRun.chunkSize

    private var chunks: [[UInt8]] = []
    /// Bytes packed into runs since the executor last asked what to add (``wanted()``).
    private(set) var arrivedBytes = 0

    /// The chunks held.
    var count: Int { chunks.count }

    /// A chunk for a record of `size` bytes: one from the pool when the record fits in a chunk,
    /// else a new one of `max(chunkSize, size)` bytes.
    mutating func chunk(for size: Int) -> [UInt8] {
        arrivedBytes += size
        if size <= PackedTrackRun.chunkSize, let chunk = chunks.popLast() { return chunk }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(max(PackedTrackRun.chunkSize, size))
        return chunk
    }

    /// Counts a record appended to a chunk the run already had.
    mutating func noteAppended(_ size: Int) { arrivedBytes += size }

    /// Keeps `chunk` (read and emptied) when it is of the ordinary size and the pool has room;
    /// otherwise it goes back to the allocator.
    mutating func giveBack(_ chunk: [UInt8]) {
        guard chunk.isEmpty, chunks.count < Self.maxChunks, chunk.capacity >= PackedTrackRun.chunkSize, chunk.capacity < 2 * PackedTrackRun.chunkSize
        else { return }
        chunks.append(chunk)
    }

    /// Chunks to touch and add before the executor's next look, given the bytes packed since its
    /// last: twice those, less what the pool holds, within its capacity. Resets the count of
    /// arrivals.
    mutating func wanted() -> Int {
        defer { arrivedBytes = 0 }
        let target = min(Self.maxChunks, (2 * arrivedBytes + PackedTrackRun.chunkSize - 1) / PackedTrackRun.chunkSize)
        return max(0, target - chunks.count)
    }

    /// Adds chunks made by ``touchedChunk()``, as far as there is room.
    mutating func add(_ touched: [[UInt8]]) {
        chunks.append(contentsOf: touched.prefix(max(0, Self.maxChunks - chunks.count)))
    }

    /// Lets every chunk go back to the allocator.
    mutating func empty() {
        chunks = []
        arrivedBytes = 0
    }

    /// An empty chunk of the ordinary size, every page of it written once.
    static func touchedChunk() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: PackedTrackRun.chunkSize) { buffer, count in
            if let base = buffer.baseAddress { base.initialize(repeating: 0, count: buffer.count) }
            count = 0
        }
    }
}
