import Foundation

/// Writes ``JSON`` values as compact UTF-8 JSON text with object keys in sorted order, so the
/// same value always produces the same bytes.
package enum JSONWriter {
    /// The JSON text of `value`.
    package static func string(_ value: JSON) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// The UTF-8 bytes of `value`.
    ///
    /// - Parameter value: The value.
    /// - Returns: Its JSON, UTF-8.
    package static func bytes(_ value: JSON) -> [UInt8] {
        ByteWriter.bytes(estimate: 256) { write(value, into: &$0) }
    }

    /// Appends the UTF-8 bytes of `value` to `out`.
    package static func write(_ value: JSON, into out: inout [UInt8]) {
        out.append(contentsOf: bytes(value))
    }

    /// Appends an object with its keys sorted.
    package static func writeObject(_ members: [String: JSON], into out: inout [UInt8]) {
        out.append(contentsOf: ByteWriter.bytes(estimate: 256) { writeObject(members, into: &$0) })
    }

    /// Appends `text` as a quoted JSON string.
    package static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(contentsOf: ByteWriter.bytes(estimate: text.utf8.count + 2) { writeString(text, into: &$0) })
    }

    /// Writes the UTF-8 bytes of `value`.
    package static func write(_ value: JSON, into out: inout ByteWriter) {
        var repeated: RepeatedContext?
        write(value, into: &out, repeated: &repeated)
    }

    /// Writes an object with its keys sorted.
    package static func writeObject(_ members: [String: JSON], into out: inout ByteWriter) {
        var repeated: RepeatedContext?
        writeObject(members, into: &out, repeated: &repeated)
    }

    /// The last object written in this pass under the key `context`, and where its bytes are:
    /// a batch of this SDK's events carries the context plugin's one dictionary in each of
    /// them, whose bytes are copied instead of written again.
    private struct RepeatedContext {
        let members: [String: JSON]
        let range: Range<Int>

        /// Whether `other` is this very dictionary (the same storage, so the same members):
        /// not `==`, under which `0.0` and `-0.0` are equal and written differently.
        func isSame(as other: [String: JSON]) -> Bool {
            guard MemoryLayout<[String: JSON]>.size == MemoryLayout<UInt>.size else { return false }
            return withUnsafeBytes(of: members) { mine in withUnsafeBytes(of: other) { $0.load(as: UInt.self) == mine.load(as: UInt.self) } }
        }
    }

    private static func write(_ value: JSON, into out: inout ByteWriter, repeated: inout RepeatedContext?) {
        switch value {
        case .null:
            out.append("null")
        case .bool(let flag):
            out.append(flag ? "true" : "false")
        case .int(let number):
            out.appendDecimal(number.magnitude, negative: number < 0)
        case .uint(let number):
            out.appendDecimal(number)
        case .double(let number):
            writeDouble(number, into: &out)
        case .string(let text):
            writeString(text, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out, repeated: &repeated)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members, into: &out, repeated: &repeated)
        }
    }

    private static func writeObject(_ members: [String: JSON], into out: inout ByteWriter, repeated: inout RepeatedContext?) {
        guard members.count <= 16 else { return writeLargeObject(members, into: &out, repeated: &repeated) }
        out.append(UInt8(ascii: "{"))
        // The members' positions, sorted by key in a buffer on the stack: no array of
        // key-value copies per object (events are written at tens of thousands per second).
        withUnsafeTemporaryAllocation(of: Dictionary<String, JSON>.Index.self, capacity: members.count) { order in
            guard let base = order.baseAddress else { return }
            base.initialize(repeating: members.startIndex, count: members.count)
            defer { base.deinitialize(count: members.count) }
            let keys = members.keys
            var count = 0
            var position = members.startIndex
            while position != members.endIndex {
                // Insertion sort: objects are small, and this keeps the buffer in place.
                var slot = count
                let key = keys[position]
                while slot > 0, key < keys[order[slot - 1]] {
                    order[slot] = order[slot - 1]
                    slot -= 1
                }
                order[slot] = position
                count += 1
                members.formIndex(after: &position)
            }
            for index in 0..<count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                let member = members[order[index]]
                writeMember(member.key, member.value, into: &out, repeated: &repeated)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Objects above 16 members: sorted as an array (insertion sort would be quadratic).
    private static func writeLargeObject(_ members: [String: JSON], into out: inout ByteWriter, repeated: inout RepeatedContext?) {
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.sortedByKey().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeMember(member.key, member.value, into: &out, repeated: &repeated)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `"key":value`; a `context` object that is the one written last under that key is
    /// copied from where it was written.
    private static func writeMember(_ key: String, _ value: JSON, into out: inout ByteWriter, repeated: inout RepeatedContext?) {
        writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        // The case first: most members are not objects, and this runs for every event encoded.
        guard case .object(let members) = value, key == "context" else { return write(value, into: &out, repeated: &repeated) }
        if let last = repeated, last.isSame(as: members), out.appendWritten(last.range) { return }
        let start = out.count
        writeObject(members, into: &out, repeated: &repeated)
        repeated = RepeatedContext(members: members, range: start..<out.count)
    }

    private static func writeDouble(_ number: Double, into out: inout ByteWriter) {
        guard number.isFinite else { return out.append("null") }
        // Swift prints the shortest text that reads back as the same Double: 19.99 → "19.99".
        var text = number.description
        text.withUTF8 { out.append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `text` as a quoted JSON string.
    package static func writeString(_ text: String, into out: inout ByteWriter) {
        var text = text
        text.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            guard let base = bytes.baseAddress else { return out.append(UInt8(ascii: "\"")) }
            var runStart = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time while none of them needs escaping.
                if index + 8 <= bytes.count, !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    out.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<index])))
                    appendEscape(byte, into: &out)
                    runStart = index + 1
                }
                index += 1
            }
            out.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart...])))
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Whether any of the eight bytes of `word` is a control character, a quote or a backslash
    /// (exact: the bit tricks report a byte below 0x20, or equal to 0x22 or 0x5C, and no other).
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highBits
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroAfterXor = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return (control | (zeroAfterXor & highBits)) != 0
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func appendEscape(_ byte: UInt8, into out: inout ByteWriter) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            out.append("u00")
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
