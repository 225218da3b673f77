import Foundation

/// A call's plain values packed into one byte array at the call, for a call that waits behind
/// a backlog: the caller's dictionaries (a hash table per level, a 32-byte box per value, a heap
/// string per long key or text — about 750 bytes for six properties and a nested object) are
/// released when the call returns, and what waits is a fifth of that, in one allocation.
///
/// The bytes are read back on the executor into exactly the ``JSON`` that ``ValueConverter``
/// makes of the same dictionary. Only the kinds that convert without a problem are packed —
/// strings, `Int` and `Int64`, finite `Double`s and `Float`s, Booleans, `Date`s (as the
/// converter's text), and Swift dictionaries and arrays of them nested at most
/// ``PendingValues/plainNesting`` levels; anything else (an `NSNumber`, a NaN) leaves the call
/// as it was, to be converted and reported as before.
///
/// The layout (little-endian, lengths and counts as LEB128): an object is its member count,
/// then each member's key (length, UTF-8) and value; a value is a tag byte — `s` a string
/// (length, UTF-8), `i` an integer (8 bytes), `d` a double (its 8-byte bit pattern), `t` / `f`
/// a Boolean, `o` an object, `a` an array (count, values). The top level is an object without
/// its tag.
package struct PackedValues: Sendable {
    /// The packed bytes.
    let bytes: [UInt8]

    /// `values` packed, or `nil` when one of them is not of a kind packed here.
    static func pack(_ values: [String: Any]) -> PackedValues? {
        var packable = true
        let bytes = ByteWriter.bytes(estimate: ByteWriter.scratchLimit) { writer in
            packable = Packer.members(of: values, depth: 1, into: &writer)
        }
        return packable ? PackedValues(bytes: bytes) : nil
    }

    /// `values` packed, handed to `body` where they were written (on the stack when they fit
    /// in ``ByteWriter/scratchLimit`` bytes), so a caller that copies them elsewhere allocates
    /// nothing; `nil`, without calling `body`, when one value is not of a kind packed here.
    static func withPacked<Result>(_ values: [String: Any], _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        var packable = true
        var result: Result?
        let fitted = withUnsafeTemporaryAllocation(byteCount: ByteWriter.scratchLimit, alignment: 1) { scratch -> Bool in
            guard var writer = ByteWriter(into: scratch) else { return false }
            packable = Packer.members(of: values, depth: 1, into: &writer)
            guard packable, writer.count <= scratch.count else { return false }
            result = body(UnsafeRawBufferPointer(rebasing: scratch[..<writer.count]))
            return true
        }
        guard !fitted, packable else { return result }
        return pack(values)?.bytes.withUnsafeBytes(body)
    }

    /// The values as ``JSON``, or `nil` when the bytes are not a packing (never for bytes
    /// ``pack(_:)`` made; checked all the same, as every read of bytes is).
    func unpacked() -> [String: JSON]? {
        bytes.withUnsafeBytes(Self.unpacked)
    }

    /// The values packed in `buffer` as ``JSON``, as ``unpacked()``.
    static func unpacked(_ buffer: UnsafeRawBufferPointer) -> [String: JSON]? {
        var reader = Unpacker(buffer: buffer)
        guard let members = reader.members(depth: 1), reader.isAtEnd else { return nil }
        return members
    }
}

/// Writes values in ``PackedValues``' layout. Each value is passed as a generic parameter, so
/// the type in an `Any` box is compared as a metatype, not found by a dynamic cast (the same
/// test ``PendingValues/allPlain(_:)`` makes).
private enum Packer {
    /// Each member is passed to ``value(_:depth:into:)`` as an `Any`, which opens its box.
    static func members(of dictionary: [String: Any], depth: Int, into writer: inout ByteWriter) -> Bool {
        writer.appendLength(dictionary.count)
        for (key, member) in dictionary {
            writer.appendText(key)
            guard value(member, depth: depth, into: &writer) else { return false }
        }
        return true
    }

    private static func elements(of array: [Any], depth: Int, into writer: inout ByteWriter) -> Bool {
        writer.appendLength(array.count)
        for element in array {
            guard value(element, depth: depth, into: &writer) else { return false }
        }
        return true
    }

    private static func value<Value>(_ value: Value, depth: Int, into writer: inout ByteWriter) -> Bool {
        let valueType = Value.self
        if valueType == String.self {
            writer.append(UInt8(ascii: "s"))
            writer.appendText(unsafeBitCast(value, to: String.self))
        } else if valueType == Int.self {
            writer.append(UInt8(ascii: "i"))
            writer.appendWord(UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int.self))))
        } else if valueType == Int64.self {
            writer.append(UInt8(ascii: "i"))
            writer.appendWord(UInt64(bitPattern: unsafeBitCast(value, to: Int64.self)))
        } else if valueType == Double.self {
            let number = unsafeBitCast(value, to: Double.self)
            guard number.isFinite else { return false }
            writer.append(UInt8(ascii: "d"))
            writer.appendWord(number.bitPattern)
        } else if valueType == Bool.self {
            writer.append(UInt8(ascii: unsafeBitCast(value, to: Bool.self) ? "t" : "f"))
        } else if valueType == Date.self {
            writer.append(UInt8(ascii: "s"))
            writer.appendText(Timestamp.string(from: unsafeBitCast(value, to: Date.self)))
        } else if valueType == Float.self {
            // As the converter reads a Float: its shortest text, so 19.99f is 19.99.
            let number = unsafeBitCast(value, to: Float.self)
            guard number.isFinite else { return false }
            writer.append(UInt8(ascii: "d"))
            writer.appendWord((Double(number.description) ?? Double(number)).bitPattern)
        } else {
            guard depth < PendingValues.plainNesting else { return false }
            return container(value, depth: depth + 1, into: &writer)
        }
        return true
    }

    private static func container<Value>(_ value: Value, depth: Int, into writer: inout ByteWriter) -> Bool {
        let valueType = Value.self
        if valueType == [String: Any].self {
            writer.append(UInt8(ascii: "o"))
            return members(of: unsafeBitCast(value, to: [String: Any].self), depth: depth, into: &writer)
        }
        if valueType == [Any].self {
            writer.append(UInt8(ascii: "a"))
            return elements(of: unsafeBitCast(value, to: [Any].self), depth: depth, into: &writer)
        }
        // Homogeneous literals (`["a", "b"]`, `["size": "42"]`).
        if valueType == [String].self { return typedElements(value, as: [String].self, depth: depth, into: &writer) }
        if valueType == [Int].self { return typedElements(value, as: [Int].self, depth: depth, into: &writer) }
        if valueType == [Double].self { return typedElements(value, as: [Double].self, depth: depth, into: &writer) }
        if valueType == [Bool].self { return typedElements(value, as: [Bool].self, depth: depth, into: &writer) }
        if valueType == [String: String].self { return typedMembers(value, as: [String: String].self, depth: depth, into: &writer) }
        if valueType == [String: Int].self { return typedMembers(value, as: [String: Int].self, depth: depth, into: &writer) }
        if valueType == [String: Double].self { return typedMembers(value, as: [String: Double].self, depth: depth, into: &writer) }
        return false
    }

    /// A homogeneous array: `Element` is the elements' own type, so ``value(_:depth:into:)``
    /// compares it directly.
    private static func typedElements<Value, Element>(_ value: Value, as _: [Element].Type, depth: Int, into writer: inout ByteWriter) -> Bool {
        let array = unsafeBitCast(value, to: [Element].self)
        writer.append(UInt8(ascii: "a"))
        writer.appendLength(array.count)
        for element in array {
            guard Packer.value(element, depth: depth, into: &writer) else { return false }
        }
        return true
    }

    /// A homogeneous dictionary, as ``typedElements(_:as:depth:into:)``.
    private static func typedMembers<Value, Member>(_ value: Value, as _: [String: Member].Type, depth: Int, into writer: inout ByteWriter) -> Bool {
        let dictionary = unsafeBitCast(value, to: [String: Member].self)
        writer.append(UInt8(ascii: "o"))
        writer.appendLength(dictionary.count)
        for (key, member) in dictionary {
            writer.appendText(key)
            guard Packer.value(member, depth: depth, into: &writer) else { return false }
        }
        return true
    }
}

extension ByteWriter {
    /// Appends `length` as LEB128: seven bits a byte, low bits first.
    fileprivate mutating func appendLength(_ length: Int) {
        LEB128.forEachByte(of: length) { append($0) }
    }

    /// Appends eight bytes, low byte first.
    fileprivate mutating func appendWord(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { append($0) }
    }

    /// Appends the UTF-8 length and bytes of `text`.
    fileprivate mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            appendLength(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
    }
}

/// Reads ``PackedValues``' layout, checking every length and count against the bytes left and
/// every nesting against ``PendingValues/plainNesting``.
private struct Unpacker {
    let buffer: UnsafeRawBufferPointer
    private var position = 0

    init(buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    var isAtEnd: Bool { position == buffer.count }

    mutating func members(depth: Int) -> [String: JSON]? {
        guard depth <= PendingValues.plainNesting, let count = length() else { return nil }
        var members = Self.emptyObject(room: count)
        for _ in 0..<count {
            guard let key = text(), let member = value(depth: depth) else { return nil }
            members[key] = member
        }
        return members
    }

    /// Empty objects with room for 6, 12, 24 and 48 members (8 to 64 buckets).
    private static let emptyObjects = [6, 12, 24, 48].map { [String: JSON](minimumCapacity: $0) }

    /// An empty object with room for `count` members. A copy of an empty object that has the
    /// room takes its storage's type from it; `reserveCapacity`, or an object made from nothing,
    /// looks the type up in the runtime each time (`Benchmarks/README.md`, "Where the time goes").
    private static func emptyObject(room count: Int) -> [String: JSON] {
        for object in emptyObjects where object.capacity >= count { return object }
        return [String: JSON](minimumCapacity: count)
    }

    private mutating func value(depth: Int) -> JSON? {
        guard position < buffer.count else { return nil }
        let tag = buffer[position]
        position += 1
        switch tag {
        case UInt8(ascii: "s"): return text().map(JSON.string)
        case UInt8(ascii: "i"): return word().map { .int(Int64(bitPattern: $0)) }
        case UInt8(ascii: "d"): return word().map { .double(Double(bitPattern: $0)) }
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "o"): return members(depth: depth + 1).map(JSON.object)
        case UInt8(ascii: "a"): return elements(depth: depth + 1).map(JSON.array)
        default: return nil
        }
    }

    private mutating func elements(depth: Int) -> [JSON]? {
        guard depth <= PendingValues.plainNesting, let count = length() else { return nil }
        var elements: [JSON] = []
        elements.reserveCapacity(count)
        for _ in 0..<count {
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
        }
        return elements
    }

    /// A LEB128 length no larger than the bytes left (each member or element takes at least one).
    private mutating func length() -> Int? {
        LEB128.read(buffer, at: &position)
    }

    private mutating func word() -> UInt64? {
        guard buffer.count - position >= 8 else { return nil }
        let word = buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(littleEndian: word)
    }

    private mutating func text() -> String? {
        guard let count = length() else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[position..<(position + count)])
        position += count
        return String(decoding: bytes, as: UTF8.self)
    }
}
