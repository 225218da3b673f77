/// Writes bytes through a pointer into memory it is given: made with ``init(into:)`` it counts
/// what does not fit instead of writing it, so that its user can run the same writes again into
/// ``count`` bytes; inside ``bytes(estimate:_:)`` it moves to memory of its own, twice the size,
/// whenever the writes outgrow what it has.
///
/// Encoding an event is a few hundred small appends; an `Array` append checks the array's
/// uniqueness and capacity each time (a quarter of the encoding's cost), this one compares two
/// integers.
package struct ByteWriter {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// What the writer does when the writes outgrow ``capacity``.
    private var growth: Growth
    /// The bytes written so far, or needed when that is more than the memory given.
    package private(set) var count = 0

    private enum Growth {
        /// Counts what does not fit.
        case none
        /// Moves to memory it allocates; `base` is its caller's.
        case fromGiven
        /// Moves to a larger allocation; `base` is its own, freed by ``takeBytes()``.
        case owned
    }

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int, growth: Growth) {
        self.base = base
        self.capacity = capacity
        self.growth = growth
    }

    /// A writer into `buffer`, or `nil` when it has no memory: what goes beyond it is counted,
    /// not written, so a `count` larger than the buffer says the bytes did not fit.
    package init?(into buffer: UnsafeMutableRawBufferPointer) {
        guard let address = buffer.baseAddress else { return nil }
        self.init(base: address.assumingMemoryBound(to: UInt8.self), capacity: buffer.count, growth: .none)
    }

    /// The bytes `write` produces, in one pass. An estimate of up to ``scratchLimit`` bytes is
    /// written into stack memory and copied out into an array of exactly the bytes' size (an
    /// array with room to spare would be copied again by whoever keeps it for long, such as the
    /// disk log's resident events); writes beyond the estimate, or a larger estimate, go to
    /// memory of the writer's own, doubled as needed, copied out the same way.
    package static func bytes(estimate: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8] {
        guard estimate <= scratchLimit else {
            var writer = ByteWriter(base: .allocate(capacity: estimate), capacity: estimate, growth: .owned)
            write(&writer)
            return writer.takeBytes()
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(estimate, 16)) { scratch in
            var writer = scratch.baseAddress.map { ByteWriter(base: $0, capacity: scratch.count, growth: .fromGiven) }
                ?? ByteWriter(base: .allocate(capacity: 16), capacity: 16, growth: .owned)
            write(&writer)
            return writer.takeBytes()
        }
    }

    /// The largest estimate written on the stack first: an event's.
    static let scratchLimit = 1024

    /// The bytes written, in an array of exactly their size; frees the writer's own memory.
    private mutating func takeBytes() -> [UInt8] {
        let count = count, base = base
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0, let target = buffer.baseAddress { target.initialize(from: base, count: count) }
            initialized = count
        }
        if case .owned = growth { base.deallocate() }
        capacity = 0
        return bytes
    }

    /// Moves what was written to memory of its own of at least `needed` bytes (and at least
    /// twice the current size). Only for a writer that grows, whose `count` never exceeds its
    /// capacity.
    private mutating func grow(toHold needed: Int) {
        let larger = Swift.max(needed, capacity * 2, 64)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        if case .owned = growth { base.deallocate() }
        base = moved
        capacity = larger
        growth = .owned
    }

    /// Appends one byte.
    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count < capacity {
            base[count] = byte
            count += 1
        } else {
            appendBeyondCapacity(byte)
        }
    }

    @inline(never)
    private mutating func appendBeyondCapacity(_ byte: UInt8) {
        if case .none = growth {
            count += 1
            return
        }
        grow(toHold: count + 1)
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > capacity - count {
            if case .none = growth {
                count += bytes.count
                return
            }
            grow(toHold: count + bytes.count)
        }
        if let source = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Appends again the bytes at `range` of those written so far; `false`, with nothing
    /// appended, when they are not all in this writer's memory (a writer that only counted them).
    package mutating func appendWritten(_ range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= Swift.min(count, capacity) else { return false }
        if range.count > capacity - count {
            if case .none = growth { return false }
            grow(toHold: count + range.count)
        }
        (base + count).initialize(from: base + range.lowerBound, count: range.count)
        count += range.count
        return true
    }

    /// Appends the UTF-8 of a literal.
    package mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `bytes`.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends the decimal digits of `value`, with a minus sign when `negative`.
    package mutating func appendDecimal(_ value: UInt64, negative: Bool = false) {
        if negative { append(UInt8(ascii: "-")) }
        // At most 20 digits, written backwards into a tuple on the stack.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { scratch in
            var position = scratch.count
            var remaining = value
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            append(UnsafeRawBufferPointer(rebasing: scratch[position...]))
        }
    }
}
