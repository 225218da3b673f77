import Foundation

/// Random (version 4) UUID strings, fast enough for the call site.
///
/// `UUID()` costs about 2 µs on Linux (each one reads the system's random source); this
/// generator draws from xoshiro256** seeded once per process from the system source, behind a
/// lock, and formats the text itself: about 50 ns. The identifiers are unique, not secret.
package enum RandomIdentifier {
    private struct Xoshiro256 {
        var state: (UInt64, UInt64, UInt64, UInt64)

        init() {
            var system = SystemRandomNumberGenerator()
            state = (system.next(), system.next(), system.next(), system.next())
            if state == (0, 0, 0, 0) { state.0 = 0x9E37_79B9_7F4A_7C15 }
        }

        mutating func next() -> UInt64 {
            let result = rotate(state.1 &* 5, 7) &* 9
            let shifted = state.1 << 17
            state.2 ^= state.0
            state.3 ^= state.1
            state.1 ^= state.2
            state.0 ^= state.3
            state.2 ^= shifted
            state.3 = rotate(state.3, 45)
            return result
        }

        private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
            (value << count) | (value >> (64 - count))
        }
    }

    private static let generator = Locked(Xoshiro256())

    /// A version-4 UUID in canonical form, upper case unless `lowercase`.
    package static func uuidString(lowercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeUUID(into: buffer, at: 0, lowercase: lowercase)
        }
    }

    /// Writes a new version-4 UUID (36 characters) into `buffer` from `position`; returns the
    /// position after it. No allocation: the caller builds one string around it.
    package static func writeUUID(into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int, lowercase: Bool = false) -> Int {
        var (high, low) = generator.withLock { ($0.next(), $0.next()) }
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        guard let base = buffer.baseAddress, position >= 0, position + 36 <= buffer.count else { return position }
        var out = base + position
        // Two hex digits per byte from a table: 8-4-4 digits from the high word, 4-12 from the low one.
        (lowercase ? lowerHexPairs : upperHexPairs).withUnsafeBufferPointer { pairs in
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out.pointee = UInt8(ascii: "-")
                    out += 1
                }
                let word = index < 8 ? high : low
                let byte = Int(truncatingIfNeeded: word >> UInt64(56 - (index % 8) * 8)) & 0xFF
                out[0] = pairs[byte &* 2]
                out[1] = pairs[byte &* 2 &+ 1]
                out += 2
            }
        }
        return position + 36
    }

    /// The two hex digits of every byte value, in order: `"000102…"`.
    private static let upperHexPairs = hexPairs(Array("0123456789ABCDEF".utf8))
    private static let lowerHexPairs = hexPairs(Array("0123456789abcdef".utf8))

    private static func hexPairs(_ digits: [UInt8]) -> [UInt8] {
        (0..<256).flatMap { [digits[$0 >> 4], digits[$0 & 0xF]] }
    }
}
