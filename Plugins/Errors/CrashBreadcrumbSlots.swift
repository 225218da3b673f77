import Foundation
import MetaRouterCore

/// The breadcrumbs as a crash record carries them: fixed slots in memory that the handler
/// copies to the record file as they are. Each breadcrumb is written once, when it is added,
/// into the slot its number picks (a ring), in binary so the executor pays little for it:
///
/// - slot header: the number (UInt64, 0 for empty), the payload's length (UInt16), 2 reserved
///   bytes, an checksum of the payload (UInt32, see ``checksum(_:)``);
/// - payload: the time (Int64 ms since 1970), the level (UInt8: debug, info, warning, error),
///   the category (UInt8 length, bytes), the message (UInt16 length, bytes), then the data as
///   JSON when there is any. Text is cut and data left out to fit 496 bytes.
///
/// A slot torn by a crash in the middle of its update fails its checksum and is skipped.
/// Confined to the executor; the memory is kept for the process's lifetime (a crash may read
/// it at any moment) and reused by a later instance.
package final class CrashBreadcrumbSlots: @unchecked Sendable {  // written only on the executor; read by the signal handler as plain bytes
    /// Bytes per slot, its header included.
    package static let slotSize = 512
    static let headerSize = 16
    static let maximumSlots = 100
    private static let pool = Locked<[UInt]>([])  // addresses of memory given back

    /// Slots in the ring.
    package let count: Int
    /// The slots' bytes, which the crash handler copies into the record as they are.
    package let memory: UnsafeMutableRawPointer
    // Confined to the executor, so the runtime's check of each access (a quarter of adding a
    // breadcrumb) guards nothing.
    @exclusivity(unchecked) private var added: UInt64 = 0
    /// The slot the next breadcrumb goes to.
    @exclusivity(unchecked) private var nextSlot = 0
    @exclusivity(unchecked) private var recycled = false

    /// `count` slots (at most 100), all empty.
    package init(count: Int) {
        self.count = min(max(1, count), Self.maximumSlots)
        let byteCount = Self.maximumSlots * Self.slotSize
        memory = Self.pool.withLock { $0.popLast() }.flatMap(UnsafeMutableRawPointer.init(bitPattern:)) ?? UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    }

    /// Hands the memory to the next instance; the handler must no longer name it.
    package func recycle() {
        guard !recycled else { return }
        recycled = true
        Self.pool.withLock { $0.append(UInt(bitPattern: memory)) }
    }

    /// Writes `breadcrumb` into the next slot.
    package func add(_ breadcrumb: Breadcrumb) {
        guard !recycled else { return }
        added &+= 1
        let slot = memory + nextSlot * Self.slotSize
        nextSlot = nextSlot + 1 == count ? 0 : nextSlot + 1
        // Marked empty first: a crash halfway through leaves a slot that is skipped, not misread.
        slot.storeBytes(of: UInt64(0), as: UInt64.self)
        let payload = UnsafeMutableRawBufferPointer(start: slot + Self.headerSize, count: Self.slotSize - Self.headerSize)
        let length = Self.encode(breadcrumb, into: payload)
        slot.storeBytes(of: UInt16(length), toByteOffset: 8, as: UInt16.self)
        slot.storeBytes(of: Self.checksum(UnsafeRawBufferPointer(rebasing: payload[..<length])), toByteOffset: 12, as: UInt32.self)
        slot.storeBytes(of: added, as: UInt64.self)
    }

    /// Writes the payload; returns its length.
    private static func encode(_ breadcrumb: Breadcrumb, into out: UnsafeMutableRawBufferPointer) -> Int {
        out.storeBytes(of: Timestamp.epochMillis(breadcrumb.timestamp), as: Int64.self)
        switch breadcrumb.level {
        case .debug: out[8] = 0
        case .info: out[8] = 1
        case .warning: out[8] = 2
        case .error: out[8] = 3
        }
        var position = 9
        writeText(breadcrumb.category, lengthBytes: 1, limit: 64, into: out, at: &position)
        writeText(breadcrumb.message, lengthBytes: 2, limit: out.count - position - 2, into: out, at: &position)
        // Written straight into the slot; data that does not fit is left out (the bytes written
        // past the payload's length are never read).
        if let data = breadcrumb.data, var writer = ByteWriter(into: UnsafeMutableRawBufferPointer(rebasing: out[position...])) {
            JSONWriter.writeObject(data, into: &writer)
            if writer.count <= out.count - position { position += writer.count }
        }
        return position
    }

    /// Writes `value`'s length in `lengthBytes` bytes, then its bytes, cut to `limit` and to
    /// the room left.
    private static func writeText(_ value: String, lengthBytes: Int, limit: Int, into out: UnsafeMutableRawBufferPointer, at position: inout Int) {
        var value = value
        value.withUTF8 { bytes in
            let kept = min(bytes.count, limit, out.count - position - lengthBytes)
            if lengthBytes == 1 { out[position] = UInt8(kept) } else { out.storeBytes(of: UInt16(kept), toByteOffset: position, as: UInt16.self) }
            position += lengthBytes
            UnsafeMutableRawBufferPointer(rebasing: out[position..<(position + kept)]).copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<kept])))
            position += kept
        }
    }

    private static let levels: [LogLevel] = [.debug, .info, .warning, .error]

    /// Empties every slot (a reset).
    package func clear() {
        guard !recycled else { return }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: count * Self.slotSize)
    }

    /// The breadcrumbs in a record's slot bytes, oldest first; torn or malformed slots skipped.
    package static func decode(_ bytes: ArraySlice<UInt8>, count: Int, slotSize: Int) -> [Breadcrumb] {
        guard slotSize > headerSize, slotSize <= 65_536, count >= 0, count <= maximumSlots else { return [] }
        var found: [(UInt64, Breadcrumb)] = []
        for index in 0..<count {
            let start = bytes.startIndex + index * slotSize
            guard start + slotSize <= bytes.endIndex else { break }
            let slot = Array(bytes[start..<(start + slotSize)])
            slot.withUnsafeBytes { raw in
                let number = raw.loadUnaligned(as: UInt64.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
                guard number > 0, length <= slotSize - headerSize else { return }
                let payload = UnsafeRawBufferPointer(rebasing: raw[headerSize..<(headerSize + length)])
                guard checksum(payload) == raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self), let breadcrumb = decodePayload(payload) else { return }
                found.append((number, breadcrumb))
            }
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    private static func decodePayload(_ payload: UnsafeRawBufferPointer) -> Breadcrumb? {
        guard payload.count >= 10, Int(payload[8]) < levels.count else { return nil }
        let millis = payload.loadUnaligned(as: Int64.self)
        var position = 9
        func text(lengthBytes: Int) -> String? {
            guard position + lengthBytes <= payload.count else { return nil }
            let length = lengthBytes == 1 ? Int(payload[position]) : Int(payload.loadUnaligned(fromByteOffset: position, as: UInt16.self))
            position += lengthBytes
            guard position + length <= payload.count else { return nil }
            defer { position += length }
            return String(decoding: payload[position..<(position + length)], as: UTF8.self)
        }
        guard let category = text(lengthBytes: 1), let message = text(lengthBytes: 2) else { return nil }
        var data: [String: JSON]?
        if position < payload.count {
            data = (try? JSONParser.parse(Array(payload[position...])))?.objectValue
        }
        return Breadcrumb(
            category: category, message: message, level: levels[Int(payload[8])], data: data,
            timestamp: Date(timeIntervalSince1970: Double(millis) / 1000))
    }

    /// FNV-1a over 8-byte words (then the remaining bytes), folded to 32 bits.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01b3
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0x100_0000_01b3
            offset += 1
        }
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
