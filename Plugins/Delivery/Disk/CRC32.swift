/// CRC-32 (IEEE 802.3), the checksum of every disk record, computed sixteen bytes at a time
/// ("slicing by 16": sixteen table lookups per step, of which only four wait for the previous
/// step's result).
enum CRC32 {
    /// Sixteen tables of 256 entries, one after another: table `k` holds the CRC of a byte
    /// followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 16 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<16 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { checksum(UnsafeRawBufferPointer($0)) }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { checksum(UnsafeRawBufferPointer($0)) }
    }

    private static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            /// The entry of table `slice` for the byte of `word` at `shift`.
            @inline(__always) func look(_ slice: Int, _ word: UInt32, _ shift: UInt32) -> UInt32 {
                table[slice &* 256 &+ Int((word >> shift) & 0xFF)]
            }
            var crc: UInt32 = 0xFFFF_FFFF
            var index = 0
            let count = bytes.count
            while index + 16 <= count {
                // Two unaligned eight-byte loads, read as little-endian on every platform.
                let first = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let second = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self))
                let b = UInt32(truncatingIfNeeded: first >> 32)
                let c = UInt32(truncatingIfNeeded: second)
                let d = UInt32(truncatingIfNeeded: second >> 32)
                // The twelve lookups that do not depend on the running CRC first, so that they
                // overlap the previous step; only the last four wait for it.
                let ahead = look(11, b, 0) ^ look(10, b, 8) ^ look(9, b, 16) ^ look(8, b, 24)
                    ^ look(7, c, 0) ^ look(6, c, 8) ^ look(5, c, 16) ^ look(4, c, 24)
                    ^ look(3, d, 0) ^ look(2, d, 8) ^ look(1, d, 16) ^ look(0, d, 24)
                let a = crc ^ UInt32(truncatingIfNeeded: first)
                crc = ahead ^ (look(15, a, 0) ^ look(14, a, 8)) ^ (look(13, a, 16) ^ look(12, a, 24))
                index += 16
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
            return crc ^ 0xFFFF_FFFF
        }
    }
}
