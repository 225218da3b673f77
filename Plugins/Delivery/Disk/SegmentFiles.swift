import Foundation
import MetaRouterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The segment files of one disk log: `segment-<16 hex digits>.log`, owner-only, appended to
/// through one open descriptor. Only files named this way, in this directory, are ever
/// deleted, and only with `unlink` (which never removes a directory).
///
/// Everything read from the directory is untrusted: a name whose id is at or above
/// ``maximumSegmentId`` is not one this log wrote and is ignored, so id arithmetic cannot
/// overflow and an id fits the index's 32 bits;
/// a segment is read only when it is a regular file (not a FIFO, device, directory or link)
/// of at most ``maximumReadBytes``.
final class SegmentFiles {
    /// Ids (and sequence numbers) this log writes stay below 2^48: far beyond any real queue,
    /// and far enough below `UInt64.max` that `+ 1` never traps.
    static let maximumId: UInt64 = 1 << 48
    /// Segment ids stay below 2^32 (4 billion segments of 1 MB), so the index keeps them in 32
    /// bits.
    static let maximumSegmentId: UInt64 = 1 << 32
    /// The largest segment file recovery reads into memory.
    static let maximumReadBytes = 256 * 1024 * 1024

    struct Segment: Equatable {
        let id: UInt64
        var url: URL
        /// Bytes in the file (for the active segment, ``SegmentFiles/activeSize`` is current).
        var size = 0
    }

    let directory: URL
    private(set) var segments: [Segment] = [] {
        didSet { closedBytes = segments.dropLast().reduce(0) { $0 + $1.size } }
    }
    /// Bytes in every segment but the last, kept as ``segments`` changes (which is rare: a
    /// roll, a deletion), so ``totalBytes`` costs no walk on every append.
    private var closedBytes = 0
    private(set) var activeSize = 0
    private(set) var bytesWritten = 0
    /// The most ``totalBytes`` has been since the log was opened, counted at every write: what
    /// the disk bound promises, including the moments inside a commit between a write and the
    /// deletion it makes room for.
    private(set) var largestTotalBytes = 0
    private var descriptor: Int32 = -1
    /// The segment ``read(id:offset:count:)`` has open.
    private var reader: (id: UInt64, handle: Int32)?
    /// The highest segment id seen in the directory, listed once: the directory lock keeps
    /// other writers out, so later segments only need to stay above it and above our own.
    private var highestListedId: UInt64?
    /// Where background `fsync`s run, one at a time.
    private let syncQueue = DispatchQueue(label: "metarouter.event-log.fsync", qos: .utility)
    private let syncPending = Locked(false)
    /// Segments finished since the last sync, still open: each is `fsync`ed with the next
    /// grouped sync, or closed without one if it is deleted first (its events are gone, so its
    /// pages need never reach the disk).
    private var finished: [(id: UInt64, descriptor: Int32)] = []
    /// Finished segments made durable, and finished segments deleted before they had to be.
    private let finishedCounts = Locked((synced: 0, discarded: 0))

    init(directory: URL) {
        self.directory = directory
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        for segment in finished { close(segment.descriptor) }
        closeReader()
    }

    /// How many finished segments were `fsync`ed, and how many were deleted before their sync
    /// (at full load with a healthy host, most of them: delivery outruns the grouped sync).
    var finishedSegments: (synced: Int, discarded: Int) { finishedCounts.current }

    /// The segment names present on disk, oldest first, and the names that look like
    /// segments but carry an id this log never writes.
    func existing() -> (segments: [Segment], ignored: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var segments: [Segment] = []
        var ignored: [String] = []
        for name in names where name.hasPrefix("segment-") && name.hasSuffix(".log") {
            guard name.utf8.count == 28, let id = UInt64(name.dropFirst(8).prefix(16), radix: 16), id < Self.maximumSegmentId else {
                ignored.append(name)
                continue
            }
            segments.append(Segment(id: id, url: directory.appendingPathComponent(name)))
        }
        return (segments.sorted { $0.id < $1.id }, ignored.sorted())
    }

    /// The bytes of a segment, or why it cannot be read. Opens without following links and
    /// without blocking, and reads only a regular file of bounded size.
    func read(_ segment: Segment) -> Result<[UInt8], StorageError> {
        let name = segment.url.lastPathComponent
        let handle = open(segment.url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard handle >= 0 else {
            return .failure(StorageError("\(name) cannot be opened (\(String(cString: strerror(errno))))"))
        }
        defer { close(handle) }
        var info = stat()
        guard fstat(handle, &info) == 0 else {
            return .failure(StorageError("\(name) cannot be examined (\(String(cString: strerror(errno))))"))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(StorageError("\(name) is not a regular file")) }
        guard info.st_size >= 0, info.st_size <= Self.maximumReadBytes else {
            return .failure(StorageError("\(name) is \(info.st_size) bytes, above the \(Self.maximumReadBytes)-byte limit"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                readBytes(handle, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if result < 0, errno == EINTR { continue }
            guard result >= 0 else {
                return .failure(StorageError("\(name) cannot be read (\(String(cString: strerror(errno))))"))
            }
            if result == 0 { break }
            filled += result
        }
        return .success(Array(bytes.prefix(filled)))
    }

    /// Adopts segments found on disk as this log's (oldest first).
    func adopt(_ found: [Segment]) { segments = found }

    /// Bytes in this log's segment files.
    var totalBytes: Int {
        closedBytes + (descriptor >= 0 ? activeSize : segments.last?.size ?? 0)
    }

    /// Descriptors open now: the active segment, the one reads keep, finished segments waiting
    /// for their sync.
    var openDescriptors: Int { (descriptor >= 0 ? 1 : 0) + (reader == nil ? 0 : 1) + finished.count }

    /// Whether a segment is open for writing.
    var isWritable: Bool { descriptor >= 0 }

    /// Whether the active segment is still in the directory: a segment deleted (or its
    /// directory removed) behind the log's back can still be written, and would be lost.
    var activeIsLinked: Bool {
        guard descriptor >= 0 else { return false }
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_nlink > 0
    }

    /// Closes the active segment and starts `segment-<id>.log`, with an id above every
    /// segment file listed (the directory is listed once) and above this log's own; a name
    /// taken since the listing is skipped, so an existing file is never reused.
    func startSegment(id requested: UInt64) throws {
        let listed = highestListedId ?? existing().segments.last?.id ?? 0
        let highest = max(segments.last?.id ?? 0, listed)
        var id = max(requested, highest + 1)
        if descriptor >= 0, let current = segments.last {
            // Made durable with the next grouped sync (within the uploader's `syncInterval`),
            // on the sync queue: an `fsync` can take hundreds of milliseconds on a busy disk.
            finished.append((current.id, descriptor))
            segments[segments.count - 1].size = activeSize
            descriptor = -1
        }
        // `O_EXCL`: a file that appeared since the listing is skipped over, never truncated.
        var url: URL
        var opened: Int32
        var attempts = 0
        while true {
            guard id < Self.maximumSegmentId, attempts < 64 else { throw DiskStoreError.io("no free segment name in \(directory.path)") }
            url = directory.appendingPathComponent(String(format: "segment-%016llx.log", id))
            // Readable too, so queued events can be read back through it even once the file is
            // no longer in the directory.
            opened = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
            if opened >= 0 || errno != EEXIST { break }
            id += 1
            attempts += 1
        }
        guard opened >= 0 else { throw DiskStoreError.io("cannot create \(url.path): \(String(cString: strerror(errno)))") }
        highestListedId = id
        descriptor = opened
        activeSize = 0
        segments.append(Segment(id: id, url: url))
        try append(LogRecord.fileHeader)
    }

    /// The id of the segment being written.
    var activeId: UInt64? { segments.last?.id }

    /// Appends `bytes` to the active segment (one `write` call in the common case).
    func append(_ bytes: [UInt8]) throws {
        guard descriptor >= 0 else { throw DiskStoreError.io("the event log is closed") }
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while written < buffer.count {
                let result = write(descriptor, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    let problem = String(cString: strerror(errno))
                    restoreSize()
                    throw DiskStoreError.io("write failed: \(problem)")
                }
                written += result
            }
        }
        activeSize += written
        bytesWritten += written
        largestTotalBytes = max(largestTotalBytes, totalBytes)
    }

    /// After a failed write: cuts off what part of it reached the file, so the file ends at
    /// ``activeSize`` again and records written later land where the store expects them; if
    /// the file cannot be cut, ``activeSize`` follows the file's real end instead.
    private func restoreSize() {
        if ftruncate(descriptor, off_t(activeSize)) != 0 {
            let end = lseek(descriptor, 0, SEEK_END)
            if end >= 0 { activeSize = Int(end) }
        }
    }

    /// `count` bytes of segment `id` from `offset` (fewer at the end of the file), or `nil`
    /// when the segment is not this log's or cannot be read. The last segment read stays open,
    /// since reads walk the queue front to back.
    func read(id: UInt64, offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count > 0 else { return nil }
        if id == activeId, descriptor >= 0 { return readAt(descriptor, offset: offset, count: count) }
        if let open = finished.first(where: { $0.id == id }) { return readAt(open.descriptor, offset: offset, count: count) }
        if reader?.id != id {
            closeReader()
            guard let segment = segments.first(where: { $0.id == id }) else { return nil }
            let handle = open(segment.url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard handle >= 0 else { return nil }
            reader = (id, handle)
        }
        guard let handle = reader?.handle else { return nil }
        return readAt(handle, offset: offset, count: count)
    }

    private func readAt(_ handle: Int32, offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(handle, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if result < 0, errno == EINTR { continue }
            guard result >= 0 else { return nil }
            if result == 0 { break }
            filled += result
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// Closes the descriptor ``read(id:offset:count:)`` keeps.
    func closeReader() {
        if let reader { close(reader.handle) }
        reader = nil
    }

    /// Closes every descriptor the log holds — the active segment (without an `fsync`: the
    /// data is in the page cache, which survives the process), the one reads keep and finished
    /// segments — until ``reopenActive()``.
    func park() {
        closeReader()
        for segment in finished { close(segment.descriptor) }
        finished = []
        guard descriptor >= 0 else { return }
        if !segments.isEmpty { segments[segments.count - 1].size = activeSize }
        close(descriptor)
        descriptor = -1
    }

    /// Opens the active segment again after ``park()``, checking it is still the file the log
    /// wrote (a regular file of the size it left).
    func reopenActive() throws {
        guard descriptor < 0, let active = segments.last else { return }
        let opened = open(active.url.path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw DiskStoreError.io("cannot reopen \(active.url.path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(opened, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == activeSize else {
            close(opened)
            throw DiskStoreError.io("\(active.url.lastPathComponent) changed while the log had it closed")
        }
        descriptor = opened
    }

    /// Flushes and closes the active segment; later appends fail.
    func closeActive() {
        closeReader()
        syncFinished()
        // Finished segments still being made durable in the background are waited for.
        syncQueue.sync {}
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
        descriptor = -1
    }

    /// Flushes the finished segments and the active one to stable storage.
    func sync() {
        syncFinished()
        if descriptor >= 0 { fsync(descriptor) }
    }

    /// Hands over the finished segments' descriptors, which the caller makes durable.
    private func takeFinished() -> [Int32] {
        defer { finished = [] }
        return finished.map(\.descriptor)
    }

    /// `fsync`s and closes finished segments' descriptors, counting them as synced.
    private static func makeDurable(_ descriptors: [Int32], counting counts: Locked<(synced: Int, discarded: Int)>) {
        for descriptor in descriptors {
            fsync(descriptor)
            close(descriptor)
        }
        counts.withLock { $0.synced += descriptors.count }
    }

    /// Flushes and closes the finished segments, waiting.
    private func syncFinished() {
        Self.makeDurable(takeFinished(), counting: finishedCounts)
    }

    /// Flushes the finished segments (closing them) and the active segment to stable storage
    /// on ``syncQueue``, without waiting.
    func syncInBackground() {
        if !finished.isEmpty {
            let descriptors = takeFinished()
            let counts = finishedCounts
            syncQueue.async { Self.makeDurable(descriptors, counting: counts) }
        }
        let alreadyPending = syncPending.withLock { pending -> Bool in
            defer { pending = true }
            return pending
        }
        guard descriptor >= 0, !alreadyPending else { return }
        let copy = dup(descriptor)
        let pending = syncPending
        guard copy >= 0 else { return pending.withLock { $0 = false } }
        syncQueue.async {
            pending.withLock { $0 = false }
            fsync(copy)
            close(copy)
        }
    }

    /// Deletes one segment this log owns.
    func delete(id: UInt64) {
        guard let index = segments.firstIndex(where: { $0.id == id }) else { return }
        if reader?.id == id { closeReader() }
        unlink(segments[index].url.path)
        segments.remove(at: index)
        if let position = finished.firstIndex(where: { $0.id == id }) {
            // Unlinked and closed before any sync: the kernel drops its pages unwritten.
            close(finished.remove(at: position).descriptor)
            finishedCounts.withLock { $0.discarded += 1 }
        }
    }

    /// Deletes every segment except the active one.
    func deleteAllButActive() {
        for segment in segments.dropLast() { delete(id: segment.id) }
    }
}

/// `read(2)`, reachable by this name inside ``SegmentFiles``, whose own `read(_:)` hides it.
private func readBytes(_ handle: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(handle, buffer, count)
}
