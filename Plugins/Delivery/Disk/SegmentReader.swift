import Foundation

/// What reading one segment found.
struct SegmentContents {
    var records: [LogRecord] = []
    /// Records whose checksum or structure was wrong, skipped.
    var corrupt = 0
    /// Bytes at the end that did not form a whole record (a torn write), ignored.
    var tornBytes = 0
    /// The file was written by a newer format version and was left alone.
    var unsupportedVersion = false
}

/// Reads the records of a segment, skipping what is damaged and never giving up on the rest.
enum SegmentReader {
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

    private static func scan(_ bytes: [UInt8], from start: Int, into initial: SegmentContents) -> SegmentContents {
        var contents = initial
        var offset = start
        var inCorruptRun = false
        while offset < bytes.count {
            guard bytes.count - offset >= LogRecord.headerSize else {
                contents.tornBytes += bytes.count - offset
                break
            }
            guard bytes[offset] == UInt8(ascii: "M"), bytes[offset + 1] == UInt8(ascii: "R") else {
                if !inCorruptRun { contents.corrupt += 1 }
                inCorruptRun = true
                offset += 1
                continue
            }
            var header = ByteReader(bytes[(offset + 4)..<(offset + LogRecord.headerSize)])
            let length = Int(header.integer() as UInt32? ?? 0)
            let checksum: UInt32 = header.integer() ?? 0
            let payloadStart = offset + LogRecord.headerSize
            guard length <= LogRecord.maximumPayload else {
                if !inCorruptRun { contents.corrupt += 1 }
                inCorruptRun = true
                offset += 1
                continue
            }
            guard payloadStart + length <= bytes.count else {
                contents.tornBytes += bytes.count - offset
                break
            }
            let payload = bytes[payloadStart..<(payloadStart + length)]
            guard CRC32.checksum(payload) == checksum, let record = LogRecord.decode(type: bytes[offset + 2], payload: payload) else {
                if !inCorruptRun { contents.corrupt += 1 }
                inCorruptRun = true
                offset += 1
                continue
            }
            inCorruptRun = false
            contents.records.append(record)
            offset = payloadStart + length
        }
        return contents
    }
}
