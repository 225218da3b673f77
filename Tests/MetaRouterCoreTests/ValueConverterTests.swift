import Foundation
import Testing

@testable import MetaRouterCore

@Suite struct ValueConverterTests {
    private func convert(_ values: [String: Any]) -> ([String: JSON], [ConversionIssue]) {
        let result = ValueConverter.convert(values, root: "properties")
        return (result.value, result.issues)
    }

    @Test func convertsEveryScalarType() {
        let uuid = UUID()
        let (value, issues) = convert([
            "string": "s", "bool": true, "int": 42, "int8": Int8(-8), "int16": Int16(16), "int32": Int32(32),
            "int64": Int64.max, "uint": UInt(7), "uint8": UInt8(8), "uint16": UInt16(16), "uint32": UInt32(32),
            "uint64": UInt64.max, "double": 19.99, "float": Float(19.99), "decimal": Decimal(string: "19.99")!,
            "date": Date(timeIntervalSince1970: 0.25), "url": URL(string: "https://example.com/a?b=c")!,
            "uuid": uuid, "data": Data([1, 2, 3]), "null": NSNull(),
        ])
        #expect(issues.isEmpty)
        #expect(value["string"] == "s")
        #expect(value["bool"] == .bool(true))
        #expect(value["int"] == .int(42))
        #expect(value["int8"] == .int(-8))
        #expect(value["int16"] == .int(16))
        #expect(value["int32"] == .int(32))
        #expect(value["int64"] == .int(Int64.max))
        #expect(value["uint"] == .int(7))
        #expect(value["uint8"] == .int(8))
        #expect(value["uint16"] == .int(16))
        #expect(value["uint32"] == .int(32))
        #expect(value["uint64"] == .uint(UInt64.max))
        #expect(value["double"] == .double(19.99))
        #expect(value["float"] == .double(19.99))
        #expect(value["decimal"] == .double(19.99))
        #expect(value["date"] == "1970-01-01T00:00:00.250Z")
        #expect(value["url"] == "https://example.com/a?b=c")
        #expect(value["uuid"] == .string(uuid.uuidString.lowercased()))
        #expect(value["data"] == "AQID")
        #expect(value["null"] == .null)
    }

    @Test func keepsFoundationBooleansAndNumbersApart() throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(#"{"t": true, "one": 1, "half": 0.5}"#.utf8))
        let (value, issues) = convert(parsed as? [String: Any] ?? [:])
        #expect(issues.isEmpty)
        #expect(value["t"] == .bool(true))
        #expect(value["one"] == .int(1))
        #expect(value["half"] == .double(0.5))
        let (boxed, _) = convert(["yes": NSNumber(value: true), "int8": NSNumber(value: Int8(1))])
        #expect(boxed["yes"] == .bool(true))
        #expect(boxed["int8"] == .int(1))
    }

    @Test func convertsNilOptionalsToNull() {
        let missing: String? = nil
        let present: Int? = 5
        let (value, issues) = convert(["missing": missing as Any, "present": present as Any])
        #expect(issues.isEmpty)
        #expect(value["missing"] == .null)
        #expect(value["present"] == .int(5))
    }

    @Test func convertsNestedContainers() {
        let (value, issues) = convert(["items": [["sku": "A", "price": 1.5], ["sku": "B"]], "meta": ["k": [1, 2]]])
        #expect(issues.isEmpty)
        #expect(value["items"] == [["sku": "A", "price": 1.5], ["sku": "B"]])
        #expect(value["meta"] == ["k": [1, 2]])
    }

    @Test func dropsNonFiniteNumbersByKeyPath() {
        let (value, issues) = convert([
            "ok": 1, "nan": Double.nan, "items": [["price": Double.infinity, "sku": "A"]], "f": Float.nan,
        ])
        #expect(value["ok"] == .int(1))
        #expect(value["nan"] == nil)
        #expect(value["items"] == [["sku": "A"]])
        #expect(Set(issues.map(\.keyPath)) == ["properties.nan", "properties.items[0].price", "properties.f"])
    }

    @Test func dropsUnsupportedTypesByKeyPath() {
        final class Opaque {}
        let (value, issues) = convert(["keep": "x", "nested": ["bad": Opaque()]])
        #expect(value == ["keep": "x", "nested": [:]])
        #expect(issues.count == 1)
        #expect(issues.first?.keyPath == "properties.nested.bad")
        #expect(issues.first?.reason.contains("unsupported type") == true)
    }

    @Test func dropsNestingDeeperThan32() {
        var deep: Any = ["leaf": 1]
        for _ in 0..<40 { deep = ["d": deep] }
        let (value, issues) = convert(["deep": deep, "shallow": 1])
        #expect(value["shallow"] == .int(1))
        #expect(issues.count == 1)
        #expect(issues.first?.reason.contains("deeper than 32") == true)
        var depth = 0
        var cursor = value["deep"]
        while let next = cursor?["d"] {
            depth += 1
            cursor = next
        }
        #expect(depth > 20 && depth < 32)
    }

    /// A typed value nested past the parser's own limit (128) loses the too-deep branch only:
    /// before, the whole value failed to read back and every property was dropped.
    @Test(arguments: [33, 127, 129, 400])
    func anEncodableNestedPastEveryLimitKeepsItsSiblings(levels: Int) {
        final class Node: Encodable {
            let name = "n\"}]{["
            let child: Node?
            init(child: Node?) { self.child = child }
        }
        struct Properties: Encodable {
            let tree: Node
            let sku = "SHOE-1"
            let tags = ["a", "b"]
        }
        var tree = Node(child: nil)
        for _ in 0..<levels { tree = Node(child: tree) }
        let result = ValueConverter.convert(encodable: Properties(tree: tree), root: "properties")
        #expect(result.value["sku"] == "SHOE-1")
        #expect(result.value["tags"] == ["a", "b"])
        #expect(result.issues.count == 1)
        #expect(result.issues.first?.reason.contains("deeper than 32") == true)
        #expect(result.value["tree"]?["name"] == "n\"}]{[")
    }

    /// Reading levels past a depth as null skips them whole, strings with brackets and escapes
    /// included, and reads what follows them as the plain parser does.
    @Test func nullingDeepLevelsSkipsThemWhole() throws {
        let text = #"{"a": {"b": [1, {"c": "x\\\"]}"}, true, -2.5e3, null], "s": "y\"{"}, "after": [1, "}"]}"#
        let plain = try JSONParser.parse(text)
        let nulled = try JSONParser.parse(Array(text.utf8), nullingDeeperThan: 2)
        #expect(nulled["after"] == plain["after"])
        #expect(nulled["a"]?["s"] == plain["a"]?["s"])
        #expect(nulled["a"]?["b"] == [.null, .null, .null, .null, .null])
        #expect(try JSONParser.parse(Array(text.utf8), nullingDeeperThan: 0) == ["a": .null, "after": .null])
    }

    @Test func convertsNestedEncodableValues() {
        struct Item: Encodable {
            let sku: String
            let price: Double
            let added: Date
        }
        let (value, issues) = convert(["item": Item(sku: "A", price: 19.99, added: Date(timeIntervalSince1970: 0))])
        #expect(issues.isEmpty)
        #expect(value["item"] == ["sku": "A", "price": 19.99, "added": "1970-01-01T00:00:00.000Z"])
    }

    @Test func convertsTypedProperties() {
        struct Order: Encodable {
            let id: String
            let total: Double
            let items: [String]
        }
        let result = ValueConverter.convert(encodable: Order(id: "o1", total: 19.99, items: ["a"]), root: "properties")
        #expect(result.issues.isEmpty)
        #expect(result.value == ["id": "o1", "total": 19.99, "items": ["a"]])
        let notObject = ValueConverter.convert(encodable: [1, 2], root: "properties")
        #expect(notObject.value.isEmpty)
        #expect(notObject.issues.count == 1)
    }

    @Test func typedPropertiesWithNaNAreReportedNotFatal() {
        struct Bad: Encodable { let value: Double }
        let result = ValueConverter.convert(encodable: Bad(value: .nan), root: "properties")
        #expect(result.value.isEmpty)
        #expect(result.issues.count == 1)
    }
}
