import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

@Suite struct JSONTests {
    @Test func writesNumbersExactly() {
        #expect(JSONWriter.string(.double(19.99)) == "19.99")
        #expect(JSONWriter.string(.double(0.1)) == "0.1")
        #expect(JSONWriter.string(.int(9_007_199_254_740_993)) == "9007199254740993")
        #expect(JSONWriter.string(.uint(UInt64.max)) == "18446744073709551615")
        #expect(JSONWriter.string(.int(Int64.min)) == "-9223372036854775808")
        #expect(JSONWriter.string(.double(1.0)) == "1.0")
    }

    @Test func sortsKeysDeterministically() {
        let value: JSON = ["b": 1, "a": ["d": true, "c": .null], "C": "x"]
        #expect(JSONWriter.string(value) == #"{"C":"x","a":{"c":null,"d":true},"b":1}"#)
    }

    @Test func escapesStrings() {
        #expect(JSONWriter.string("a\"b\\c\nd\t\u{01}é😀") == "\"a\\\"b\\\\c\\nd\\t\\u0001é😀\"")
    }

    @Test func parsesIntegersAndDoublesApart() throws {
        let value = try JSONParser.parse(#"{"i": 9007199254740993, "d": 19.99, "e": 1e3, "u": 18446744073709551615, "n": -0}"#)
        #expect(value["i"] == .int(9_007_199_254_740_993))
        #expect(value["d"] == .double(19.99))
        #expect(value["e"] == .double(1000))
        #expect(value["u"] == .uint(UInt64.max))
        #expect(value["n"] == .int(0))
    }

    @Test func roundTripsThroughWriter() throws {
        let value: JSON = ["s": "é\u{2028}\"", "a": [1, 2.5, false, .null, ["x": []]], "o": [:]]
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
    }

    @Test func parsesEscapesAndSurrogates() throws {
        #expect(try JSONParser.parse(#""\u00e9\ud83d\ude00\/\b""#) == .string("é😀/\u{08}"))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"abc", "01x", "1.", "-", "\"\\ud800\"", "[1] 2", "{\"a\":1,}"])
    func rejectsMalformedInput(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    /// JSON names compare by code points, Swift's dictionary keys by canonical equivalence: an
    /// object whose keys differ only in normalization is refused with both keys spelled out,
    /// never merged into one value. A repeated key (same code points) keeps its last value.
    @Test func keysThatDifferOnlyInNormalizationAreRefusedNotMerged() throws {
        let text = #"{"caf\u00e9": 1, "cafe\u0301": 2}"#
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do {
            _ = try JSONParser.parse(text)
        } catch {
            #expect(error.reason.contains(#""caf\u{E9}" and "cafe\u{301}" differ only in Unicode normalization"#), "\(error)")
        }
        let nested = #"{"a": [{"\u00c5": true, "A\u030a": false}]}"#
        #expect(throws: JSONParseError.self) { try JSONParser.parse(nested) }
        #expect(try JSONParser.parse(#"{"k": 1, "k": 2}"#) == ["k": 2])
        #expect(try JSONParser.parse(#"{"caf\u00e9": 1, "cafe": 2}"#).objectValue?.count == 2)
    }

    @Test func rejectsExcessiveNesting() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test func codableKeepsIntegerAndDoubleApart() throws {
        let value: JSON = ["price": 19.99, "count": 3, "big": .int(9_007_199_254_740_993)]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSON.self, from: data)
        #expect(decoded["count"] == .int(3))
        #expect(decoded["big"] == .int(9_007_199_254_740_993))
        #expect(decoded["price"]?.doubleValue == 19.99)
    }

    @Test func formatsTimestampsWithMilliseconds() {
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: 1_795_306_645.877)) == "2026-11-22T00:17:25.877Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        let parsed = Timestamp.date(from: "2026-11-22T00:17:25.877Z")
        #expect(parsed.map(Timestamp.epochMillis) == 1_795_306_645_877)
    }

    @Test func anyDateIsWrittenWithinYearsZeroToNineThousandNineHundredNinetyNine() {
        // A plugin or a caller's clock can hand the event any Date: none may trap.
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: -1e300)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.epochMillis(Date(timeIntervalSince1970: 9.3e15)) == Timestamp.writableMillis.upperBound)
        #expect(!Timestamp.isWritable(Date(timeIntervalSince1970: .nan)))
        #expect(!Timestamp.isWritable(Date(timeIntervalSince1970: 253_402_300_800)))
        #expect(Timestamp.isWritable(Date(timeIntervalSince1970: -62_167_219_200)))
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude, -9.3e15] {
            let event = Event(type: .track, timestamp: Date(timeIntervalSince1970: seconds), event: "Hostile")
            #expect(Event(json: JSON.object(event.jsonObject())) != nil)
            #expect(!event.jsonBytes().isEmpty)
        }
    }

    @Test func messageIdsHaveEpochMillisAndUUID() {
        let id = MessageID.make(at: Date(timeIntervalSince1970: 1_734_691_572.843))
        let parts = id.split(separator: "-", maxSplits: 1)
        #expect(parts.first == "1734691572843")
        #expect(UUID(uuidString: String(parts.last ?? "")) != nil)
        let uuid = Array(parts.last ?? "")
        #expect(uuid.count == 36 && uuid[14] == "4" && "89AB".contains(uuid[19]))
        #expect(MessageID.make(at: Date(timeIntervalSince1970: 0)).hasPrefix("0-"))
        #expect(MessageID.make(at: Date(timeIntervalSince1970: -1.5)).hasPrefix("-1500-"))
    }
}

@Suite struct EventEncodingTests {
    @Test func directEncodingMatchesTheSortedObject() throws {
        var event = Event(
            type: .track, timestamp: Date(timeIntervalSince1970: 1.5), anonymousId: "a", userId: "u", groupId: "g",
            event: "Order \"Completed\"", properties: ["total": 19.99, "Z": 1, "items": [["b": 1, "a": 2]]],
            context: ["library": ["name": "x"], "app": [:]], integrations: ["All": false])
        event.sentAt = Date(timeIntervalSince1970: 2)
        event.writeKey = "wk"
        let direct = event.jsonBytes()
        #expect(direct == JSONWriter.bytes(.object(event.jsonObject())))
        let parsed = try JSONParser.parse(direct)
        #expect(Event(json: parsed) == event)
        #expect(parsed["timestamp"] == "1970-01-01T00:00:01.500Z")
    }

    @Test func randomIdentifiersAreVersion4UUIDs() {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let text = RandomIdentifier.uuidString()
            #expect(UUID(uuidString: text)?.uuidString == text)
            #expect(Array(text)[14] == "4")
            seen.insert(text)
        }
        #expect(seen.count == 10_000)
        let lower = RandomIdentifier.uuidString(lowercase: true)
        #expect(lower == lower.lowercased())
    }

    /// Keys come out in byte order whatever the object's size (small objects are sorted in
    /// place, large ones as an array) and the text reads back as the same value.
    @Test func objectsOfEverySizeAreWrittenWithSortedKeys() throws {
        var random = SeededGenerator(seed: 0x6a73_6f6e)
        for size in 0...40 {
            var members: [String: JSON] = [:]
            while members.count < size {
                let key = String((0..<Int.random(in: 1...6, using: &random)).map { _ in "abcXYZ_é0".randomElement(using: &random)! })
                members[key] = .int(Int64(members.count))
            }
            let text = JSONWriter.string(.object(members))
            #expect(try JSONParser.parse(text) == .object(members))
            let written = members.keys.sorted().map { JSONWriter.string(.string($0)) + ":" }
            var cursor = text.startIndex
            for key in written {
                let found = try #require(text.range(of: key, range: cursor..<text.endIndex))
                cursor = found.upperBound
            }
        }
    }
}
