import Foundation

/// A record as found in a segment: where it starts and how many bytes it spans (header
/// included), so an event can be read back from its file later.
struct LocatedRecord: Equatable {
    var record: LogRecord
    var offset: Int
    var length: Int
}

/// What reading one segment found.
struct SegmentContents {
    var records: [LocatedRecord] = []
    /// Records whose checksum or structure was wrong, skipped.
    var corrupt = 0
    /// Bytes at the end that did not form a whole record (a torn write), ignored.
    var tornBytes = 0
    /// The file was written by a newer format version and was left alone.
    var unsupportedVersion = false
}

/// Reads the records of a segment, skipping what is damaged and never giving up on the rest.
enum SegmentReader {
    /// What one attempt to read a record at an offset found.
    enum Parse {
        /// A whole, verified record of `length` bytes.
        case record(LogRecord, length: Int)
        /// The bytes end before the record does.
        case torn
        /// Not a valid record at this offset.
        case damaged
    }

    static func read(_ bytes: [UInt8]) -> SegmentContents {
        var contents = SegmentContents()
        guard bytes.count >= LogRecord.fileHeader.count else {
            contents.tornBytes = bytes.count
            return contents
        }
        let header = bytes.prefix(LogRecord.fileHeader.count)
        guard header.prefix(5).elementsEqual("MRLOG".utf8) else {
            contents.corrupt += 1
            return scan(bytes, from: 0, into: contents)
        }
        if let version = header.last, version > LogRecord.formatVersion {
            contents.unsupportedVersion = true
            return contents
        }
        return scan(bytes, from: LogRecord.fileHeader.count, into: contents)
    }

    /// The record starting at `offset` of `bytes`: magic, length bound, checksum and structure
    /// are all checked, so a caller can trust what it gets.
    static func parse(_ bytes: ArraySlice<UInt8>, at offset: Int) -> Parse {
        guard offset >= bytes.startIndex, bytes.endIndex - offset >= LogRecord.headerSize else { return .torn }
        guard bytes[offset] == UInt8(ascii: "M"), bytes[offset + 1] == UInt8(ascii: "R") else { return .damaged }
        var header = ByteReader(bytes[(offset + 4)..<(offset + LogRecord.headerSize)])
        let length = Int(header.integer() as UInt32? ?? 0)
        let checksum: UInt32 = header.integer() ?? 0
        guard length <= LogRecord.maximumPayload else { return .damaged }
        let payloadStart = offset + LogRecord.headerSize
        guard payloadStart + length <= bytes.endIndex else { return .torn }
        let payload = bytes[payloadStart..<(payloadStart + length)]
        guard CRC32.checksum(payload) == checksum, let record = LogRecord.decode(type: bytes[offset + 2], payload: payload) else {
            return .damaged
        }
        return .record(record, length: LogRecord.headerSize + length)
    }

    private static func scan(_ bytes: [UInt8], from start: Int, into initial: SegmentContents) -> SegmentContents {
        var contents = initial
        var offset = start
        var inCorruptRun = false
        while offset < bytes.count {
            switch parse(bytes[...], at: offset) {
            case .record(let record, let length):
                inCorruptRun = false
                contents.records.append(LocatedRecord(record: record, offset: offset, length: length))
                offset += length
            case .torn:
                contents.tornBytes += bytes.count - offset
                return contents
            case .damaged:
                if !inCorruptRun { contents.corrupt += 1 }
                inCorruptRun = true
                offset += 1
            }
        }
        return contents
    }
}
