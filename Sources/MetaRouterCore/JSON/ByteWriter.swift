/// Writes bytes through a pointer into memory it is given, counting what does not fit instead
/// of writing it, so that its user can run the same writes again into ``count`` bytes.
///
/// Encoding an event is a few hundred small appends; an `Array` append checks the array's
/// uniqueness and capacity each time (a quarter of the encoding's cost), this one compares two
/// integers.
package struct ByteWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The bytes written so far, or needed when that is more than the memory given.
    package private(set) var count = 0

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// A writer into `buffer`, or `nil` when it has no memory: what goes beyond it is counted,
    /// not written, so a `count` larger than the buffer says the bytes did not fit.
    package init?(into buffer: UnsafeMutableRawBufferPointer) {
        guard let address = buffer.baseAddress else { return nil }
        self.init(base: address.assumingMemoryBound(to: UInt8.self), capacity: buffer.count)
    }

    /// The bytes `write` produces. An estimate of up to ``scratchLimit`` bytes is written into
    /// stack memory and copied out into an array of exactly the bytes' size (an array with room
    /// to spare would be copied again by whoever keeps it for long, such as the disk log's
    /// resident events); a larger one straight into an array of that size. When the estimate
    /// was short, `write` runs once more into as many bytes as the first pass counted, so it
    /// must produce the same bytes each time it runs.
    package static func bytes(estimate: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8] {
        guard estimate <= scratchLimit else { return written(capacity: estimate, write) }
        let (fitted, needed) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(estimate, 16)) {
            scratch -> ([UInt8]?, Int) in
            guard let base = scratch.baseAddress else { return (nil, estimate) }
            var writer = ByteWriter(base: base, capacity: scratch.count)
            write(&writer)
            let count = writer.count
            guard count <= scratch.count else { return (nil, count) }
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                if count > 0, let target = buffer.baseAddress { target.initialize(from: base, count: count) }
                initialized = count
            }
            return (bytes, count)
        }
        return fitted ?? written(capacity: needed, write)
    }

    /// The largest estimate written on the stack first: an event's.
    static let scratchLimit = 1024

    /// The bytes `write` produces, in an array of `capacity` bytes, or of as many as they turn
    /// out to need.
    private static func written(capacity: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8] {
        var capacity = max(capacity, 16)
        while true {
            var written = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                var writer = ByteWriter(base: base, capacity: buffer.count)
                write(&writer)
                written = writer.count
                initialized = written <= buffer.count ? written : 0
            }
            if written <= capacity { return bytes }
            capacity = written
        }
    }

    /// Appends one byte.
    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count < capacity { base[count] = byte }
        count += 1
    }

    /// Appends `bytes`.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count <= capacity - count, let source = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
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
