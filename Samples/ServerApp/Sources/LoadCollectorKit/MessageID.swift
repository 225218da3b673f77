/// One event's message id as the collector remembers it: a 128-bit fingerprint of its UTF-8 text.
///
/// A set of a million ids misses the cache on every insert whatever it holds, so what it holds is
/// kept to 16 bytes without a string's allocation or hashing. Two different ids sharing a
/// fingerprint would count as a duplicate (and, the unique count then being one short, as a lost
/// event): the fingerprint can only raise a false alarm, never hide a loss.
public struct MessageID: Equatable, Sendable {
    let high: UInt64
    let low: UInt64

    /// The id whose UTF-8 text is `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) {
        // Two independent multiply-xorshift passes over the text, eight bytes at a time.
        var high: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var low: UInt64 = 0x1319_8A2E_0370_7344 &+ UInt64(bytes.count)
        var index = 0
        while index < bytes.count {
            var word: UInt64 = 0
            let end = min(index + 8, bytes.count)
            for position in index..<end { word |= UInt64(bytes[position]) << (8 * UInt64(position - index)) }
            high = (high ^ word) &* 0x9E37_79B9_7F4A_7C15
            high ^= high >> 31
            low = (low &+ word) &* 0xC2B2_AE3D_27D4_EB4F
            low ^= low >> 29
            index = end
        }
        self.high = high &* 0xFF51_AFD7_ED55_8CCD ^ (high >> 33)
        self.low = low &* 0xC4CE_B9FE_1A85_EC53 ^ (low >> 33)
    }

    /// The id whose text is `text`.
    public init(_ text: String) {
        var text = text
        self = text.withUTF8 { MessageID(UnsafeRawBufferPointer($0)) }
    }
}

/// The fingerprints seen so far: an open-addressing table of 16-byte slots, doubled when half full.
public struct MessageIDSet: Sendable {
    private var slots: [MessageID?]
    /// Ids held.
    public private(set) var count = 0

    /// A set with room for `capacity` ids before it first grows.
    public init(capacity: Int = 1 << 20) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        slots = Array(repeating: nil, count: size)
    }

    /// Adds `id`; returns false when it was there already.
    public mutating func insert(_ id: MessageID) -> Bool {
        if 2 * (count + 1) > slots.count { grow() }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: id.low) & mask
        while let present = slots[index] {
            if present == id { return false }
            index = (index + 1) & mask
        }
        slots[index] = id
        count += 1
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count * 2)
        count = 0
        for case let id? in old { _ = insert(id) }
    }
}
