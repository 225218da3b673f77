import Foundation

/// The records of the disk log.
///
/// A segment file starts with the 8-byte header `MRLOG`, 0, 0, version. Each record is
/// `"MR"`, a type byte, a reserved byte, the payload length (UInt32 LE), the payload's CRC-32
/// (UInt32 LE), then the payload. Integers are little-endian.
enum LogRecord: Equatable {
    /// An accepted event: its sequence number, its timestamp (ms), the device time it was
    /// written at (``DeviceTime``, ms), its messageId and encoded bytes. Records of type 1,
    /// from before device time, carry only the timestamp, which stands in for both.
    case event(sequence: UInt64, timestampMillis: Int64, storedMillis: Int64, messageId: String, payload: [UInt8])
    /// Events removed for good (delivered or dropped): inclusive sequence ranges.
    case removed([ClosedRange<UInt64>])
    /// A batch was formed: its key and its events' sequence numbers (inclusive ranges), so a
    /// batch interrupted by a crash is re-sent with the same key.
    case batch(key: String, ranges: [ClosedRange<UInt64>])
    /// The device time of the records that follow (see ``DeviceTime``): the boot it was
    /// measured on, device ms minus uptime ms, and wall-clock ms minus device ms.
    case clock(boot: String, offsetMillis: Int64, wallOffsetMillis: Int64)

    static let fileHeader: [UInt8] = Array("MRLOG".utf8) + [0, 0, formatVersion]
    static let formatVersion: UInt8 = 1
    static let headerSize = 12
    static let maximumPayload = 64 * 1024 * 1024

    /// The bytes an event record takes, header included.
    static func eventSize(messageId: String, payloadCount: Int) -> Int {
        headerSize + 26 + min(messageId.utf8.count, Int(UInt16.max)) + payloadCount
    }

    private var typeByte: UInt8 {
        switch self {
        case .event: return 5
        case .removed: return 2
        case .batch: return 3
        case .clock: return 4
        }
    }

    /// The record's bytes.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    /// Appends the record's bytes to `out`, payload written in place.
    func append(to out: inout [UInt8]) {
        let start = out.count
        // "MR", the type, a reserved byte; the length and checksum are filled in below.
        out.appendInteger(UInt32(UInt8(ascii: "M")) | UInt32(UInt8(ascii: "R")) << 8 | UInt32(typeByte) << 16)
        out.appendInteger(UInt64(0))
        writePayload(into: &out)
        let payloadStart = start + Self.headerSize
        let length = UInt32(out.count - payloadStart)
        let checksum = CRC32.checksum(out[payloadStart...])
        out.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: length.littleEndian, toByteOffset: start + 4, as: UInt32.self)
            bytes.storeBytes(of: checksum.littleEndian, toByteOffset: start + 8, as: UInt32.self)
        }
    }

    private func writePayload(into payload: inout [UInt8]) {
        switch self {
        case .event(let sequence, let timestampMillis, let storedMillis, let messageId, let bytes):
            payload.reserveCapacity(payload.count + bytes.count + messageId.utf8.count + 28)
            payload.appendInteger(sequence)
            payload.appendInteger(UInt64(bitPattern: timestampMillis))
            payload.appendInteger(UInt64(bitPattern: storedMillis))
            Self.appendShortText(messageId, to: &payload)
            payload.append(contentsOf: bytes)
        case .removed(let ranges):
            Self.append(ranges, to: &payload)
        case .batch(let key, let ranges):
            Self.appendShortText(key, to: &payload)
            Self.append(ranges, to: &payload)
        case .clock(let boot, let offsetMillis, let wallOffsetMillis):
            payload.appendInteger(UInt64(bitPattern: offsetMillis))
            payload.appendInteger(UInt64(bitPattern: wallOffsetMillis))
            Self.appendShortText(boot, to: &payload)
        }
    }

    /// Decodes a payload of `type`; `nil` when it is malformed or of an unknown type.
    static func decode(type: UInt8, payload: ArraySlice<UInt8>) -> LogRecord? {
        var reader = ByteReader(payload)
        switch type {
        case 1, 5:
            guard let sequence: UInt64 = reader.integer(), sequence < SegmentFiles.maximumId, let stamp: UInt64 = reader.integer(),
                let stored: UInt64 = type == 1 ? stamp : reader.integer(),
                let idLength: UInt16 = reader.integer(), let id = reader.bytes(Int(idLength))
            else { return nil }
            return .event(
                sequence: sequence, timestampMillis: Int64(bitPattern: stamp), storedMillis: Int64(bitPattern: stored),
                messageId: String(decoding: id, as: UTF8.self), payload: Array(reader.rest))
        case 4:
            guard let offset: UInt64 = reader.integer(), let wallOffset: UInt64 = reader.integer(),
                let bootLength: UInt16 = reader.integer(), let boot = reader.bytes(Int(bootLength)), reader.isAtEnd
            else { return nil }
            return .clock(
                boot: String(decoding: boot, as: UTF8.self), offsetMillis: Int64(bitPattern: offset),
                wallOffsetMillis: Int64(bitPattern: wallOffset))
        case 2:
            return readRanges(&reader).map(LogRecord.removed)
        case 3:
            guard let keyLength: UInt16 = reader.integer(), let key = reader.bytes(Int(keyLength)),
                let ranges = readRanges(&reader)
            else { return nil }
            return .batch(key: String(decoding: key, as: UTF8.self), ranges: ranges)
        default:
            return nil
        }
    }

    /// Sorted sequence numbers as inclusive ranges: `[1, 2, 3, 7]` → `[1...3, 7...7]`.
    static func ranges(_ sequences: [UInt64]) -> [ClosedRange<UInt64>] {
        var ranges: [ClosedRange<UInt64>] = []
        for sequence in sequences.sorted() {
            if let last = ranges.last, last.upperBound &+ 1 == sequence {
                ranges[ranges.count - 1] = last.lowerBound...sequence
            } else {
                ranges.append(sequence...sequence)
            }
        }
        return ranges
    }

    /// Appends `text`'s UTF-8 bytes, at most 65,535 of them, after their count (UInt16).
    private static func appendShortText(_ text: String, to payload: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            let kept = UnsafeBufferPointer(rebasing: bytes.prefix(Int(UInt16.max)))
            payload.appendInteger(UInt16(kept.count))
            payload.append(contentsOf: kept)
        }
    }

    private static func append(_ ranges: [ClosedRange<UInt64>], to payload: inout [UInt8]) {
        for range in ranges {
            payload.appendInteger(range.lowerBound)
            payload.appendInteger(range.upperBound)
        }
    }

    private static func readRanges(_ reader: inout ByteReader) -> [ClosedRange<UInt64>]? {
        var ranges: [ClosedRange<UInt64>] = []
        while !reader.isAtEnd {
            // Sequence numbers stay below `SegmentFiles.maximumId`, so a range's count fits an Int.
            guard let low: UInt64 = reader.integer(), let high: UInt64 = reader.integer(), low <= high,
                high < SegmentFiles.maximumId
            else { return nil }
            ranges.append(low...high)
        }
        return ranges
    }
}

/// Reads little-endian integers and byte runs from a slice.
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { bytes.isEmpty }
    var rest: ArraySlice<UInt8> { bytes }

    mutating func integer<Value: FixedWidthInteger>() -> Value? {
        let size = MemoryLayout<Value>.size
        guard bytes.count >= size else { return nil }
        var value: Value = 0
        for (shift, byte) in bytes.prefix(size).enumerated() { value |= Value(byte) << (shift * 8) }
        bytes = bytes.dropFirst(size)
        return value
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard bytes.count >= count else { return nil }
        defer { bytes = bytes.dropFirst(count) }
        return bytes.prefix(count)
    }
}

extension Array where Element == UInt8 {
    /// Appends `value`'s bytes, little-endian, in one append.
    mutating func appendInteger<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
