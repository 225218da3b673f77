import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// The writer's shortcuts — eight bytes scanned at once for characters to escape, a buffer on
/// the stack that moves to a growing one when its estimate was short, digits without
/// `String` — against the plain definitions they replace.
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

    @Test func theWordScanFindsExactlyTheBytesToEscape() async throws {
        try await offThePool {
            var random = SeededGenerator(seed: 0x6573_6361)
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
    }

    @Test func stringsOfEveryLengthAreWrittenAsTheByteByByteRuleWrites() throws {
        var random = SeededGenerator(seed: 0x7374_7269)
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
        var random = SeededGenerator(seed: 0x696e_7473)
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.min + 1]
        for digits in 1...18 {
            let power = (0..<digits).reduce(Int64(1)) { value, _ in value * 10 }
            values += [power - 1, power, power + 1, -power, Int64.random(in: -power...power, using: &random)]
        }
        for value in values { #expect(JSONWriter.string(.int(value)) == String(value)) }
        for value in [UInt64.max, UInt64(Int64.max) + 1, 0] { #expect(JSONWriter.string(.uint(value)) == String(value)) }
    }

    /// An event larger than the first estimate (1 KiB) moves to a growing buffer as it is
    /// written; the text is the same as the sorted object's.
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

    /// Any run of appends — single bytes, literals, byte runs of every size, numbers — comes out
    /// whole from every estimate, on the stack or not, growing once or many times; a writer made
    /// `into` a buffer still counts, and writes nothing, past its end.
    @Test func everyRunOfAppendsComesOutWholeFromEveryEstimate() async throws {
        try await offThePool {
            var random = SeededGenerator(SeededRandom(seed: 0x6279_7465))
            for _ in 0..<1_000 {
                let estimate = [0, 1, 16, 255, 1_023, 1_024, 1_025, 4_096, Int.random(in: 0...3_000, using: &random)].randomElement(using: &random)!
                var steps: [(inout ByteWriter, inout [UInt8]) -> Void] = []
                for _ in 0..<Int.random(in: 0...60, using: &random) {
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0:
                        let byte = UInt8.random(in: 0...255, using: &random)
                        steps.append { writer, expected in writer.append(byte); expected.append(byte) }
                    case 1:
                        steps.append { writer, expected in writer.append("literal"); expected += Array("literal".utf8) }
                    case 2:
                        let run = (0..<[0, 1, 7, 64, 700, 5_000].randomElement(using: &random)!).map { _ in UInt8.random(in: 0...255, using: &random) }
                        steps.append { writer, expected in writer.append(run); expected += run }
                    default:
                        let value = UInt64.random(in: 0...UInt64.max, using: &random)
                        steps.append { writer, expected in writer.appendDecimal(value, negative: value % 2 == 0); expected += Array(((value % 2 == 0 ? "-" : "") + String(value)).utf8) }
                    }
                }
                var expected: [UInt8] = []
                let written = ByteWriter.bytes(estimate: estimate) { writer in
                    for step in steps { step(&writer, &expected) }
                }
                #expect(written == expected, "estimate \(estimate), \(steps.count) appends")
                #expect(written.capacity < written.count + 64)

                // The same appends into a fixed buffer: what fits is written, the rest counted.
                let size = Int.random(in: 0...max(1, expected.count), using: &random)
                var buffer = [UInt8](repeating: 0xEE, count: size + 8)
                var counted = 0
                var ignored: [UInt8] = []
                buffer.withUnsafeMutableBytes { raw in
                    guard var writer = ByteWriter(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<size])) else { return }
                    for step in steps { step(&writer, &ignored) }
                    counted = writer.count
                }
                #expect(counted == expected.count)
                #expect(buffer[size...].allSatisfy { $0 == 0xEE }, "nothing written past the buffer")
                if counted <= size { #expect(Array(buffer[..<counted]) == expected) }
            }
        }
    }

    /// The JSON text of `value` built from the writer's leaves alone (each scalar and key on its
    /// own), with every object's keys sorted: no shortcut of the writer's is used.
    private static func reference(_ value: JSON) -> String {
        switch value {
        case .array(let items): return "[" + items.map(reference).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { JSONWriter.string(.string($0)) + ":" + reference(members[$0]!) }.joined(separator: ",") + "}"
        default: return JSONWriter.string(value)
        }
    }

    /// Batches of objects whose `context` members are one dictionary shared (copied from where it
    /// was first written), equal dictionaries of their own, dictionaries that differ only in
    /// `0.0` against `-0.0`, and contexts nested in contexts, at every size: the text is always
    /// the one written member by member, and a writer into a fixed buffer counts its length.
    @Test func repeatedContextsAreWrittenAsTheirMembersWouldBe() async throws {
        try await offThePool {
            var random = SeededGenerator(SeededRandom(seed: 0x636f_6e74))
            for _ in 0..<300 {
                let shared: JSON = .object([
                    "library": ["name": "metarouter-swift", "version": "1.0.0"], "os": ["name": "Linux"],
                    "padding": .string(String(repeating: "p", count: Int.random(in: 0...2_000, using: &random))),
                    "zero": .double(0.0), "locale": "en-US", "timezone": "UTC", "app": ["name": "bench"], "network": ["wifi": true],
                ])
                var events: [JSON] = []
                for index in 0..<Int.random(in: 0...40, using: &random) {
                    var context: JSON
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0, 1: context = shared
                    case 2: context = .object(shared.objectValue!.merging(["zero": .double(-0.0)]) { $1 })
                    case 3: context = .object(["context": shared, "n": .int(Int64(index))])
                    default: context = .object(shared.objectValue!.merging([:]) { $1 })
                    }
                    events.append(["type": "track", "n": .int(Int64(index)), "context": context, "properties": ["context": shared]])
                }
                let body: JSON = ["batch": .array(events), "context": shared]
                let expected = Array(Self.reference(body).utf8)
                #expect(JSONWriter.bytes(body) == expected)
                let size = Int.random(in: 0...expected.count, using: &random)
                var buffer = [UInt8](repeating: 0, count: size)
                let counted = buffer.withUnsafeMutableBytes { raw -> Int in
                    guard var writer = ByteWriter(into: raw) else { return expected.count }
                    JSONWriter.write(body, into: &writer)
                    return writer.count
                }
                #expect(counted == expected.count)
            }
        }
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
