import Foundation

/// Writes ``JSON`` values as compact UTF-8 JSON text with object keys in sorted order, so the
/// same value always produces the same bytes.
public enum JSONWriter {
    /// The JSON text of `value`.
    public static func string(_ value: JSON) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// The UTF-8 bytes of `value`.
    public static func bytes(_ value: JSON) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// Appends the UTF-8 bytes of `value` to `out`.
    public static func write(_ value: JSON, into out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let flag):
            out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number):
            out.append(contentsOf: String(number).utf8)
        case .uint(let number):
            out.append(contentsOf: String(number).utf8)
        case .double(let number):
            writeDouble(number, into: &out)
        case .string(let text):
            writeString(text, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members, into: &out)
        }
    }

    /// Appends an object with its keys sorted.
    public static func writeObject(_ members: [String: JSON], into out: inout [UInt8]) {
        guard members.count <= 16 else { return writeLargeObject(members, into: &out) }
        out.append(UInt8(ascii: "{"))
        // The members' positions, sorted by key in a buffer on the stack: no array of
        // key-value copies per object (events are written at tens of thousands per second).
        withUnsafeTemporaryAllocation(of: Dictionary<String, JSON>.Index.self, capacity: members.count) { order in
            guard let base = order.baseAddress else { return }
            base.initialize(repeating: members.startIndex, count: members.count)
            defer { base.deinitialize(count: members.count) }
            var count = 0
            var position = members.startIndex
            while position != members.endIndex {
                // Insertion sort: objects are small, and this keeps the buffer in place.
                var slot = count
                let key = members[position].key
                while slot > 0, key < members[order[slot - 1]].key {
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
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Objects above 16 members: sorted as an array (insertion sort would be quadratic).
    private static func writeLargeObject(_ members: [String: JSON], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            write(member.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func writeDouble(_ number: Double, into out: inout [UInt8]) {
        guard number.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        // Swift prints the shortest text that reads back as the same Double: 19.99 → "19.99".
        out.append(contentsOf: number.description.utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `text` as a quoted JSON string.
    public static func writeString(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(byte, into: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func appendEscape(_ byte: UInt8, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            out.append(contentsOf: "u00".utf8)
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
