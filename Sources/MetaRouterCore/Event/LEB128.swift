/// Lengths and counts as LEB128 — seven bits a byte, low bits first, the high bit set on every
/// byte but the last — as ``PackedValues`` and ``PackedTrackRun`` write them.
enum LEB128 {
    /// The bytes `length` takes.
    static func size(of length: Int) -> Int {
        var size = 1
        var remaining = UInt(length) >> 7
        while remaining > 0 {
            size += 1
            remaining >>= 7
        }
        return size
    }

    /// Appends `length` to `bytes`.
    static func append(_ length: Int, to bytes: inout [UInt8]) {
        forEachByte(of: length) { bytes.append($0) }
    }

    /// Hands the bytes of `length` to `write`, in order.
    static func forEachByte(of length: Int, _ write: (UInt8) -> Void) {
        var remaining = UInt(length)
        while remaining >= 0x80 {
            write(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        write(UInt8(remaining))
    }

    /// The length at `position` in `buffer`, moving `position` past it; `nil` when it runs past
    /// the buffer, is longer than 63 bits or is larger than the bytes left after it.
    static func read(_ buffer: UnsafeRawBufferPointer, at position: inout Int) -> Int? {
        var result: UInt = 0
        var shift: UInt = 0
        while position < buffer.count, shift < 63 {
            let byte = buffer[position]
            position += 1
            result |= UInt(byte & 0x7F) << shift
            guard byte & 0x80 != 0 else { return result <= UInt(buffer.count - position) ? Int(result) : nil }
            shift += 7
        }
        return nil
    }
}
