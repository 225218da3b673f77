import Foundation
import Testing

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

    @Test func randomCommandsNeverReadPastTheirDeclaredSize() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...512, using: &generator) & ~7
            var commands = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Plausible kinds and sizes half the time, so the walk goes deep.
            if length >= 8, Bool.random(using: &generator) {
                commands.replaceSubrange(0..<8, with: le(MachOTextSegment.segmentCommand) + le(UInt32(UInt8.random(in: 0...96, using: &generator))))
            }
            var header = Image()
            header.bytes = commands
            header.count = UInt32.random(in: 0...64, using: &generator)
            _ = walk(header.laidOut())
        }
    }
}
