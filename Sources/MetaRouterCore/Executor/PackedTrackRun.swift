import Foundation

/// Track calls made one after another while the ingress was behind
/// (``PipelineExecutor/compactionThreshold``), each kept as its name, its time and its values
/// packed (``PackedValues``), back to back in chunks of bytes. The whole run takes one ingress
/// slot, and a waiting call costs its bytes — about 120 for six properties and a nested object —
/// with no allocation of its own. The executor gives each chunk back (``PackedChunkPool``) as
/// soon as it has read its calls.
///
/// A record is the time (`timeIntervalSinceReferenceDate`'s 8-byte bit pattern, little-endian),
/// then the name and the packed values, each as a LEB128 length and its bytes. A record never
/// spans two chunks.
package final class PackedTrackRun: @unchecked Sendable {  // callers append only under the ingress's lock while the run is the ingress's last command; the executor reads it only after taking it out of the ingress under that lock, after which nothing appends
    /// The bytes a chunk has room for; a larger record gets a chunk of its own size.
    static let chunkSize = 32 * 1024

    /// Reports values that could not be read back (the reporter of every call in the run).
    let problems: InputProblemReporter
    private var chunks: [[UInt8]] = []
    /// The calls appended.
    private(set) var count = 0

    init(problems: InputProblemReporter) { self.problems = problems }

    /// Appends one call: its name, its time and its packed values; a new chunk, when one is
    /// needed, comes from `pool`.
    func append(name: String, timestamp: Date, values: UnsafeRawBufferPointer, pool: inout PackedChunkPool) {
        var name = name
        name.withUTF8 { name in
            let size = 8 + LEB128.size(of: name.count) + name.count + LEB128.size(of: values.count) + values.count
            if chunks.last.map({ $0.capacity - $0.count < size }) ?? true {
                chunks.append(pool.chunk(for: size))
            } else {
                pool.noteAppended(size)
            }
            let last = chunks.count - 1
            withUnsafeBytes(of: timestamp.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { chunks[last].append(contentsOf: $0) }
            LEB128.append(name.count, to: &chunks[last])
            chunks[last].append(contentsOf: UnsafeRawBufferPointer(name))
            LEB128.append(values.count, to: &chunks[last])
            chunks[last].append(contentsOf: values)
        }
        count += 1
    }

    /// Hands each call's event to `body`, in the order appended, and each chunk, emptied, to
    /// `giveBack` once its calls are read; the run is empty afterwards. A record whose framing
    /// does not read back (never one ``append(name:timestamp:values:pool:)`` wrote; checked all
    /// the same, as every read of bytes is) is reported, and the rest of its chunk is dropped.
    func forEachEvent(giveBack: ([UInt8]) -> Void, _ body: (consuming Event) -> Void) {
        for index in chunks.indices {
            var chunk: [UInt8] = []
            swap(&chunk, &chunks[index])
            defer {
                chunk.removeAll(keepingCapacity: true)
                giveBack(chunk)
            }
            chunk.withUnsafeBytes { bytes in
                var reader = RecordReader(bytes: bytes)
                while !reader.isAtEnd {
                    guard let record = reader.next() else {
                        problems.report(
                            InputProblem(code: .propertyNotEncodable, keyPath: "properties", message: "dropped track calls: their packed form could not be read back"),
                            call: "track")
                        return
                    }
                    body(Self.event(name: record.name, timestamp: record.timestamp, values: record.values, problems: problems))
                }
            }
        }
        chunks = []
        count = 0
    }

    /// The event of a track call made without options: the same one ``TrackCall/resolved()``
    /// makes of the call unpacked. Values that do not read back are reported and dropped.
    static func event(name: String, timestamp: Date, values: UnsafeRawBufferPointer, problems: InputProblemReporter) -> Event {
        let properties = PackedValues.unpacked(values)
        if properties == nil {
            problems.report(
                InputProblem(code: .propertyNotEncodable, keyPath: "properties", message: "dropped properties: their packed form could not be read back"),
                call: "track \"\(name)\"")
        }
        let event = Event(type: .track, messageId: "", timestamp: timestamp, event: name, properties: properties ?? [:], context: [:])
        return PreparedEvent(event).resolved()
    }

}

/// Reads a chunk's records, checking every length against the bytes left.
private struct RecordReader {
    let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func next() -> (name: String, timestamp: Date, values: UnsafeRawBufferPointer)? {
        guard bytes.count - position >= 8 else { return nil }
        let bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        position += 8
        guard let name = field(), let values = field() else { return nil }
        return (String(decoding: name, as: UTF8.self), Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)), values)
    }

    /// A LEB128 length and that many bytes, when they are all there.
    private mutating func field() -> UnsafeRawBufferPointer? {
        guard let length = LEB128.read(bytes, at: &position) else { return nil }
        let field = UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)])
        position += length
        return field
    }
}
