import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The segment files of one disk log: `segment-<16 hex digits>.log`, owner-only, appended to
/// through one open descriptor. Only files named this way, in this directory, are ever
/// deleted.
final class SegmentFiles {
    struct Segment: Equatable {
        let id: UInt64
        var url: URL
    }

    let directory: URL
    private(set) var segments: [Segment] = []
    private(set) var activeSize = 0
    private(set) var bytesWritten = 0
    private var descriptor: Int32 = -1

    init(directory: URL) {
        self.directory = directory
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The segment files present on disk, oldest first.
    func existing() -> [Segment] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name -> Segment? in
            guard name.hasPrefix("segment-"), name.hasSuffix(".log"), name.count == 28,
                let id = UInt64(name.dropFirst(8).prefix(16), radix: 16)
            else { return nil }
            return Segment(id: id, url: directory.appendingPathComponent(name))
        }.sorted { $0.id < $1.id }
    }

    /// Adopts segments found on disk as this log's (oldest first).
    func adopt(_ found: [Segment]) { segments = found }

    /// Closes the active segment and starts `segment-<id>.log`, with an id above every
    /// segment file present so an existing file is never reused.
    func startSegment(id requested: UInt64) throws {
        let highest = max(segments.last?.id ?? 0, existing().last?.id ?? 0)
        let id = max(requested, highest + 1)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        let url = directory.appendingPathComponent(String(format: "segment-%016llx.log", id))
        let opened = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw DiskStoreError.io("cannot create \(url.path): \(String(cString: strerror(errno)))") }
        descriptor = opened
        activeSize = 0
        segments.append(Segment(id: id, url: url))
        try append(LogRecord.fileHeader)
    }

    /// The id of the segment being written.
    var activeId: UInt64? { segments.last?.id }

    /// Appends `bytes` to the active segment (one `write` call in the common case).
    func append(_ bytes: [UInt8]) throws {
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while written < buffer.count {
                let result = write(descriptor, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw DiskStoreError.io("write failed: \(String(cString: strerror(errno)))")
                }
                written += result
            }
        }
        activeSize += written
        bytesWritten += written
    }

    /// Flushes the active segment to stable storage.
    func sync() {
        if descriptor >= 0 { fsync(descriptor) }
    }

    /// Deletes one segment this log owns.
    func delete(id: UInt64) {
        guard let index = segments.firstIndex(where: { $0.id == id }) else { return }
        try? FileManager.default.removeItem(at: segments[index].url)
        segments.remove(at: index)
    }

    /// Deletes every segment except the active one.
    func deleteAllButActive() {
        for segment in segments.dropLast() { delete(id: segment.id) }
    }
}
