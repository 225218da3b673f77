import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterCrashes
@testable import MetaRouterErrors

/// The parts of crash capture that run outside the signal handler: the image table, the
/// breadcrumb slots, and the decoding of record files, hostile bytes included. (The handler
/// itself is tested with real crashes in `CrashCaptureTests`.)
@Suite struct CrashRecordTests {
    @Test func theImageTableNamesThisProcesssCodeAndFindsItAgain() throws {
        let images = LoadedImage.current()
        // More than a page of /proc/self/maps: every library, not the first few.
        #expect(images.contains { $0.path.contains("libc.so") })
        #expect(images.contains { $0.path.contains("libswiftCore") })
        let image = try #require(images.first)
        let address = LoadedImage.address(path: image.path, inode: image.inode, fileOffset: image.fileOffset + 16, in: images)
        #expect(address == image.start + 16)
        #expect(LoadedImage.address(path: image.path, inode: image.inode &+ 1, fileOffset: image.fileOffset, in: images) == nil)
    }

    @Test func mapsLinesThatAreNotExecutableFilesAreSkipped() {
        let text = """
            55d0c0000000-55d0c0001000 r-xp 00001000 08:01 4242   /usr/bin/app with space
            55d0c0001000-55d0c0002000 r--p 00002000 08:01 4242   /usr/bin/app with space
            7f0000000000-7f0000001000 r-xp 00000000 00:00 0      [vdso]
            7f0000002000-7f0000001000 r-xp 00000000 08:01 7      /lib/backwards.so
            zzzz-7f0000001000 r-xp 00000000 08:01 7 /lib/garbage.so
            7f0000003000-7f0000004000 r-xp 0000000000000000000000 08:01 7 /lib/hugeoffset.so
            short line
            """
        let images = LoadedImage.parseMaps(text)
        #expect(images == [LoadedImage(start: 0x55d0_c000_0000, end: 0x55d0_c000_1000, fileOffset: 0x1000, inode: 4242, path: "/usr/bin/app with space")]
            + [LoadedImage(start: 0x7f00_0000_3000, end: 0x7f00_0000_4000, fileOffset: 0, inode: 7, path: "/lib/hugeoffset.so")])
    }

    @Test func theSlotsKeepTheLastBreadcrumbsInOrderAndSkipATornOne() throws {
        let slots = CrashBreadcrumbSlots(count: 50)
        defer { slots.recycle() }
        for index in 0..<120 {
            slots.add(Breadcrumb(category: "track", message: "event \(index)", level: index % 2 == 0 ? .info : .warning,
                                 data: index == 119 ? ["n": .int(119)] : nil, timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(index))))
        }
        var bytes = [UInt8](UnsafeRawBufferPointer(start: slots.memory, count: 50 * CrashBreadcrumbSlots.slotSize))
        let decoded = CrashBreadcrumbSlots.decode(bytes[...], count: 50, slotSize: CrashBreadcrumbSlots.slotSize)
        #expect(decoded.map(\.message) == (70..<120).map { "event \($0)" })
        #expect(decoded.last?.data == ["n": .int(119)] && decoded.last?.level == .warning)
        #expect(decoded.first?.timestamp == Date(timeIntervalSince1970: 1_800_000_070))
        // A crash in the middle of an update: that slot's bytes no longer match its checksum.
        bytes[CrashBreadcrumbSlots.slotSize * 3 + CrashBreadcrumbSlots.headerSize + 12] ^= 0xFF
        #expect(CrashBreadcrumbSlots.decode(bytes[...], count: 50, slotSize: CrashBreadcrumbSlots.slotSize).count == 49)
    }

    @Test func aBreadcrumbTooLongForItsSlotIsCutNotLost() {
        let slots = CrashBreadcrumbSlots(count: 2)
        defer { slots.recycle() }
        let long = String(repeating: "é", count: 600)
        slots.add(Breadcrumb(category: String(repeating: "c", count: 300), message: long, data: ["big": .string(long)]))
        let bytes = [UInt8](UnsafeRawBufferPointer(start: slots.memory, count: 2 * CrashBreadcrumbSlots.slotSize))
        let decoded = CrashBreadcrumbSlots.decode(bytes[...], count: 2, slotSize: CrashBreadcrumbSlots.slotSize)
        #expect(decoded.count == 1)
        #expect(decoded.first?.category.count == 64)
        #expect(decoded.first.map { $0.message.utf8.count > 300 && long.hasPrefix($0.message.dropLast()) } == true)
        #expect(decoded.first?.data == nil)
        // The data that did not fit wrote nothing past its slot.
        #expect(bytes[CrashBreadcrumbSlots.slotSize...].allSatisfy { $0 == 0 })
    }

    /// Record files are read from disk: truncated, garbage or hostile bytes give `nil` or a
    /// bounded report, never a crash.
    @Test func hostileRecordBytesNeverCrashTheDecoder() async throws {
        try await offThePool {
            var random = SeededGenerator(seed: 0x6372_6173)
            #expect(CrashReport(bytes: []) == nil)
            #expect(CrashReport(bytes: [UInt8](repeating: 0xFF, count: CrashRecordLayout.crashPartSize)) == nil)
            for round in 0..<200 {
                var bytes = random.bytes(CrashRecordLayout.crashPartSize + Int.random(in: 0...30_000, using: &random))
                bytes.withUnsafeMutableBytes { raw in
                    raw.storeBytes(of: CrashRecordLayout.magic, as: UInt64.self)
                    if round % 2 == 0 {
                        // Plausible counts and time, so decoding goes as deep as it can.
                        raw.storeBytes(of: UInt32.random(in: 0...70, using: &random), toByteOffset: CrashRecordLayout.frameCount, as: UInt32.self)
                        raw.storeBytes(of: UInt32.random(in: 0...400, using: &random), toByteOffset: CrashRecordLayout.reasonLength, as: UInt32.self)
                        raw.storeBytes(of: Int64(1_800_000_000), toByteOffset: CrashRecordLayout.seconds, as: Int64.self)
                        raw.storeBytes(of: Int64(5), toByteOffset: CrashRecordLayout.nanoseconds, as: Int64.self)
                        raw.storeBytes(of: UInt32.random(in: 0...120, using: &random), toByteOffset: CrashRecordLayout.slotCount, as: UInt32.self)
                        raw.storeBytes(of: UInt32.random(in: 0...70_000, using: &random), toByteOffset: CrashRecordLayout.slotSize, as: UInt32.self)
                    }
                }
                if let report = CrashReport(bytes: bytes) {
                    #expect(report.frames.count <= CrashRecordLayout.maxFrames)
                    #expect(report.breadcrumbs.count <= CrashBreadcrumbSlots.maximumSlots)
                    if round % 20 == 0 { _ = report.symbolicatedFrames() }
                }
            }
        }
    }
}
