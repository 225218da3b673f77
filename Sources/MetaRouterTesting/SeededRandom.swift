/// A small deterministic random generator (SplitMix64) for generative tests: the same seed
/// gives the same sequence on every platform, so a failure can be replayed from its seed.
package struct SeededRandom: Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next number in `0..<bound` (`bound` must be positive).
    package mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// ``SeededRandom`` as a `RandomNumberGenerator`, for the standard library's
/// `random(in:using:)` and `randomElement(using:)`: a generative test draws from it instead of
/// `SystemRandomNumberGenerator`, so its inputs replay from the seed (and do not cost a call
/// into the kernel each, seconds in a debug build for the megabytes a fuzz test draws).
package struct SeededGenerator: RandomNumberGenerator {
    private var seeded: SeededRandom

    /// A generator drawing from `seeded`.
    package init(_ seeded: SeededRandom) { self.seeded = seeded }

    /// A generator starting from `seed`.
    package init(seed: UInt64) { seeded = SeededRandom(seed: seed) }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 { UInt64(seeded.next(1 << 32)) << 32 | UInt64(seeded.next(1 << 32)) }

    /// `count` random bytes, eight per draw.
    package mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let word = next()
                let take = min(8, raw.count - offset)
                withUnsafeBytes(of: word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
                offset += take
            }
        }
        return bytes
    }
}
