import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterDelivery

/// The disk log's checksum, sliced sixteen bytes at a time, against the bit-by-bit definition.
@Suite struct CRC32Tests {
    /// CRC-32 (reflected polynomial 0xEDB88320) one bit at a time.
    private static func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func theStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    /// Every length around the 16-byte steps, at every alignment, and slices of arrays.
    @Test func everyLengthAndOffsetMatchesTheBitwiseDefinition() {
        var random = SeededGenerator(seed: 0x6372_6333)
        let bytes = (0..<700).map { _ in UInt8.random(in: 0...255, using: &random) }
        for start in 0..<17 {
            for length in 0...(bytes.count - start) where length < 70 || length % 37 == 0 {
                let slice = bytes[start..<(start + length)]
                #expect(CRC32.checksum(slice) == Self.bitwise(slice), "start \(start), length \(length)")
            }
        }
        #expect(CRC32.checksum(bytes) == Self.bitwise(bytes[...]))
    }
}
