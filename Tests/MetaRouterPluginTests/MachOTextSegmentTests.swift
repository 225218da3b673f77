import Foundation
import MetaRouterTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import MetaRouterCrashes

/// The Mach-O walk behind the Apple image table, on images laid out here: the `__TEXT` range
/// is found past other commands, and damaged headers give nothing rather than a read past the
/// commands.
@Suite struct MachOTextSegmentTests {
    /// A 64-bit header and its load commands, little-endian as on every Apple CPU.
    private struct Image {
        var bytes: [UInt8] = []
        var count: UInt32 = 0

        mutating func command(_ kind: UInt32, size: Int, body: [UInt8] = []) {
            var command = le(kind) + le(UInt32(truncatingIfNeeded: size)) + body
            command += [UInt8](repeating: 0, count: max(0, size - command.count))
            bytes += command
            count += 1
        }

        mutating func segment(_ name: String, address: UInt64, size: UInt64) {
            let padded = Array(name.utf8) + [UInt8](repeating: 0, count: 16 - name.utf8.count)
            command(MachOTextSegment.segmentCommand, size: MachOTextSegment.segmentCommandSize, body: padded + le(address) + le(size))
        }

        func laidOut(magic: UInt32 = MachOTextSegment.magic, commandsSize: UInt32? = nil) -> [UInt8] {
            // magic, CPU type (arm64), subtype, file type (dylib), command count, commands' size, flags, reserved
            let fields: [UInt32] = [magic, 0x0100_000C, 0, 6, count, commandsSize ?? UInt32(bytes.count), 0, 0]
            return fields.flatMap { le($0) } + bytes
        }
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { Self.le(value) }

    private func walk(_ bytes: [UInt8], slide: Int = 0x4000) -> LoadedImage? {
        // 8-byte aligned, as dyld maps headers.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        return MachOTextSegment.image(header: UnsafeRawPointer(buffer.baseAddress!), slide: slide, path: "/usr/lib/libExample.dylib")
    }

    @Test func theTextSegmentIsFoundPastOtherCommands() {
        var image = Image()
        image.command(0x1B, size: 24)  // LC_UUID
        image.segment("__PAGEZERO", address: 0, size: 0x1_0000_0000)
        image.segment("__TEXT", address: 0x1_0000_0000, size: 0x8000)
        image.segment("__DATA", address: 0x1_0000_8000, size: 0x4000)
        let found = walk(image.laidOut())
        #expect(found == LoadedImage(start: 0x1_0000_4000, end: 0x1_0000_C000, fileOffset: 0x1_0000_0000, inode: 0, path: "/usr/lib/libExample.dylib"))
    }

    @Test func damagedHeadersGiveNothing() {
        var image = Image()
        image.segment("__TEXT", address: 0x1000, size: 0x1000)
        #expect(walk(image.laidOut(magic: 0xFEED_FACE)) == nil)  // 32-bit
        #expect(walk(image.laidOut(commandsSize: 40)) == nil)  // the segment does not fit the declared size

        var zeroSized = Image()
        zeroSized.command(0x1B, size: 0)
        zeroSized.bytes += [UInt8](repeating: 0, count: 8)
        #expect(walk(zeroSized.laidOut()) == nil)  // a command of size 0 would never advance

        var empty = Image()
        empty.segment("__TEXT", address: 0x1000, size: 0)
        empty.segment("__TEXTX", address: 0x1000, size: 0x1000)
        #expect(walk(empty.laidOut()) == nil)
    }

    /// Runs the walk on `bytes` laid out so they end where an unreadable page begins: a read
    /// past the declared commands stops the test process instead of passing unseen.
    private func walkBeforeAGuardPage(_ bytes: [UInt8], slide: Int) -> LoadedImage? {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let dataPages = max(1, (bytes.count + page - 1) / page)
        guard let base = mmap(nil, (dataPages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else {
            Issue.record("mmap failed")
            return nil
        }
        defer { munmap(base, (dataPages + 1) * page) }
        mprotect(base + dataPages * page, page, PROT_NONE)
        let start = base + dataPages * page - bytes.count
        bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        return MachOTextSegment.image(header: UnsafeRawPointer(start), slide: slide, path: "/usr/lib/libExample.dylib")
    }

    /// What the walk must find, read from the array with its bounds checked at every field.
    private func expected(_ bytes: [UInt8], slide: Int) -> LoadedImage? {
        func integer<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T? {
            guard at >= 0, at + MemoryLayout<T>.size <= bytes.count else { return nil }
            return bytes[at..<(at + MemoryLayout<T>.size)].reversed().reduce(T(0)) { $0 << 8 | T($1) }
        }
        guard integer(0, UInt32.self) == MachOTextSegment.magic, let count = integer(16, UInt32.self),
            let declared = integer(20, UInt32.self).map(Int.init)
        else { return nil }
        let text = Array("__TEXT".utf8) + [UInt8](repeating: 0, count: 10)
        var offset = 0
        for _ in 0..<count {
            let at = MachOTextSegment.headerSize + offset
            guard offset + 8 <= declared, let kind = integer(at, UInt32.self), let size = integer(at + 4, UInt32.self).map(Int.init),
                size >= 8, size <= declared - offset
            else { return nil }
            if kind == MachOTextSegment.segmentCommand, size >= MachOTextSegment.segmentCommandSize, Array(bytes[(at + 8)..<(at + 24)]) == text {
                guard let address = integer(at + 24, UInt64.self), let length = integer(at + 32, UInt64.self), length > 0 else { return nil }
                let start = UInt(truncatingIfNeeded: address) &+ UInt(bitPattern: slide)
                return LoadedImage(start: start, end: start &+ UInt(length), fileOffset: address, inode: 0, path: "/usr/lib/libExample.dylib")
            }
            offset += size
        }
        return nil
    }

    /// Random load commands (seeded; the seed is in every failure), half of them plausible
    /// segment commands, some named `__TEXT`: the walk agrees with a bounds-checked reading of
    /// the same bytes, and never reads past them (they end at an unreadable page).
    @Test func randomCommandsAgreeWithABoundsCheckedReadingAndStayInside() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SeededRandom(seed: seed)
        var found = 0
        for _ in 0..<2_000 {
            let length = generator.next(65) * 8
            var commands = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next(256)) }
            var at = 0
            // Plausible kinds, sizes and names, so the walk goes deep and sometimes finds a segment.
            while at + 24 <= length, generator.next(2) == 0 {
                let size = min(length - at, 8 * (1 + generator.next(12)))
                commands.replaceSubrange(at..<(at + 8), with: le(MachOTextSegment.segmentCommand) + le(UInt32(size)))
                if generator.next(2) == 0 { commands.replaceSubrange((at + 8)..<(at + 24), with: Array("__TEXT".utf8) + [UInt8](repeating: 0, count: 10)) }
                at += size
            }
            var header = Image()
            header.bytes = commands
            header.count = UInt32(generator.next(65))
            let bytes = header.laidOut()
            let slide = generator.next(1 << 20) * 4096
            let result = walkBeforeAGuardPage(bytes, slide: slide)
            #expect(result == expected(bytes, slide: slide), "seed \(seed)")
            if result != nil { found += 1 }
        }
        #expect(found > 0, "seed \(seed): no image found in 2,000 layouts: the generator never reached a segment")
    }
}
