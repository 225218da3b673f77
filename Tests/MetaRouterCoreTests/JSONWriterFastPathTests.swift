import Foundation
import Testing

@testable import MetaRouterCore

/// The writer's shortcuts — eight bytes scanned at once for characters to escape, a bounded
/// buffer written again when its estimate was short, digits without `String` — against the
/// plain definitions they replace.
@Suite struct JSONWriterFastPathTests {
    /// The escaping rule, one byte at a time.
    private static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// A quoted JSON string written byte by byte, as the writer did before its word scan.
    private static func referenceString(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case ..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(0x22)
        return out
    }

    @Test func theWordScanFindsExactlyTheBytesToEscape() {
        var random = SystemRandomNumberGenerator()
        // Bytes on either side of each boundary the bit tricks rely on.
        let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0x9F, 0xA0, 0xA2, 0xDC, 0xFE, 0xFF]
        for round in 0..<200_000 {
            let bytes: [UInt8] = (0..<8).map { _ in
                round % 2 == 0 ? edges.randomElement(using: &random)! : UInt8.random(in: 0x20...0xFF, using: &random)
            }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(JSONWriter.mayNeedEscape(word) == bytes.contains(where: Self.needsEscape), "\(bytes)")
        }
    }

    @Test func stringsOfEveryLengthAreWrittenAsTheByteByByteRuleWrites() throws {
        var random = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\u{01}", "\u{1F}", "é", "€", "😀", "\u{7F}", "\u{2028}"]
        for length in 0...70 {
            for _ in 0..<20 {
                let text = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
                let written = JSONWriter.bytes(.string(text))
                #expect(written == Self.referenceString(text), "\(text.debugDescription)")
                #expect(try JSONParser.parse(written) == .string(text))
            }
        }
    }

    @Test func integersOfEveryMagnitudeAreWrittenAsSwiftPrintsThem() {
        var random = SystemRandomNumberGenerator()
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.min + 1]
        for digits in 1...18 {
            let power = (0..<digits).reduce(Int64(1)) { value, _ in value * 10 }
            values += [power - 1, power, power + 1, -power, Int64.random(in: -power...power, using: &random)]
        }
        for value in values { #expect(JSONWriter.string(.int(value)) == String(value)) }
        for value in [UInt64.max, UInt64(Int64.max) + 1, 0] { #expect(JSONWriter.string(.uint(value)) == String(value)) }
    }

    /// An event larger than the first estimate (1 KiB) is written a second time into exactly
    /// the bytes the first pass counted; the text is the same as the sorted object's.
    @Test func anEventLargerThanTheEstimateIsWrittenWhole() throws {
        for size in [900, 1_000, 1_023, 1_024, 1_100, 50_000] {
            var event = Event(type: .track, timestamp: Date(timeIntervalSince1970: 1.5), event: "Big",
                              properties: ["text": .string(String(repeating: "x\"", count: size / 2))])
            event.writeKey = "wk"
            let direct = event.jsonBytes()
            #expect(direct == JSONWriter.bytes(.object(event.jsonObject())))
            #expect(Event(json: try JSONParser.parse(direct)) == event)
        }
        let exact = ByteWriter.bytes(estimate: 4) { writer in
            for _ in 0..<1_000 { writer.append("abc") }
        }
        #expect(exact == Array(String(repeating: "abc", count: 1_000).utf8))
        #expect(ByteWriter.bytes(estimate: 64) { _ in }.isEmpty)
    }

    /// An encoded event keeps no spare room (the disk log would otherwise copy it again to hold
    /// it in memory): it fits the allocator's rounding, well under the log's 64-byte allowance.
    @Test func encodedEventsAreSizedToTheirBytes() {
        for size in [0, 10, 500, 2_000] {
            let event = Event(type: .track, timestamp: Date(timeIntervalSince1970: 1.5), event: "Sized",
                              properties: ["text": .string(String(repeating: "y", count: size))])
            let bytes = event.jsonBytes()
            #expect(bytes.capacity < bytes.count + 64)
        }
    }
}
