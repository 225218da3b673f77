import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// Generates nested caller values of every kind — Optionals, `Any`, `AnyHashable`, Foundation
/// containers, `NSNumber` kinds, classes, structs, enums, tuples — with the JSON each should
/// become (or `nil` when it must be dropped), and checks the converter on a 512 KiB stack.
@Suite struct ValueConverterFuzzTests {
    final class PlainClass {}
    struct PlainStruct { let x = 1 }
    enum PlainEnum { case one }
    struct Point: Encodable { let x: Int; let y: Int }

    /// A seeded generator, so a failure names a seed that reproduces it.
    struct Generator {
        var state: UInt64
        /// Values left to generate: keeps each tree small while its depth still reaches 40.
        var budget = 60

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

        /// A value at `depth` (top-level members are at 2) and what it converts to.
        mutating func value(depth: Int, maxDepth: Int) -> (Any, JSON?) {
            budget -= 1
            if depth < maxDepth, budget > 0, below(4) > 0 { return container(depth: depth, maxDepth: maxDepth) }
            return leaf(depth: depth)
        }

        mutating func container(depth: Int, maxDepth: Int) -> (Any, JSON?) {
            let allowed = depth <= ValueConverter.maximumDepth
            let count = below(3) + 1
            var swiftArray: [Any] = []
            var expectedItems: [JSON] = []
            var swiftObject: [String: Any] = [:]
            var expectedMembers: [String: JSON] = [:]
            for index in 0..<count {
                let (raw, expected) = value(depth: depth + 1, maxDepth: maxDepth)
                swiftArray.append(raw)
                if let expected { expectedItems.append(expected) }
                swiftObject["k\(index)"] = raw
                if let expected { expectedMembers["k\(index)"] = expected }
            }
            let array: JSON? = allowed ? .array(expectedItems) : nil
            let object: JSON? = allowed ? .object(expectedMembers) : nil
            switch below(8) {
            case 0: return (swiftArray, array)
            case 1: return (NSArray(array: swiftArray), array)
            case 2: return (NSMutableArray(array: swiftArray), array)
            case 3: return (swiftObject, object)
            case 4: return (NSDictionary(dictionary: swiftObject), object)
            case 5:
                let mutable = NSMutableDictionary()
                for (key, value) in swiftObject { mutable[key] = value }
                return (mutable, object)
            case 6: return (Optional(Optional(swiftObject)) as Any, object)
            default:
                let hashableKeys = Dictionary(uniqueKeysWithValues: swiftObject.map { (AnyHashable($0.key), $0.value) })
                return (hashableKeys, object)
            }
        }

        mutating func leaf(depth: Int) -> (Any, JSON?) {
            switch below(24) {
            case 0: return ("text", "text")
            case 1: return (42, 42)
            case 2: return (2.5, 2.5)
            case 3: return (true, true)
            case 4: return (NSNumber(value: true), true)
            case 5: return (NSNumber(value: Int32(7)), 7)
            case 6: return (NSNumber(value: 0.25), 0.25)
            case 7: return (NSNumber(value: UInt64.max), .uint(UInt64.max))
            case 8: return (Int8(-3), -3)
            case 9: return (Optional<String>.none as Any, .null)
            case 10: return (Optional(Optional(5)) as Any, 5)
            case 11: return (AnyHashable("hashable"), "hashable")
            // An Encodable that is an object is a container: too deep, it is dropped.
            case 12: return (Point(x: 1, y: 2), depth <= ValueConverter.maximumDepth ? ["x": 1, "y": 2] : nil)
            case 13: return (NSDecimalNumber(string: "19.99"), 19.99)
            case 14: return (NSNull(), .null)
            case 15: return (Optional<PlainClass>.none as Any, .null)
            // Values that cannot be sent: each must be dropped, alone.
            case 16: return (PlainClass(), nil)
            case 17: return (Optional(PlainClass()) as Any, nil)
            case 18: return (Optional(PlainStruct()) as Any, nil)
            case 19: return (Optional(Optional(PlainEnum.one)) as Any, nil)
            case 20: return ((1, "two"), nil)
            case 21: return (Double.nan, nil)
            case 22: return (PlainEnum.one, nil)
            default: return (Optional(Optional(Optional(PlainClass()))) as Any, nil)
            }
        }
    }

    @Test(arguments: 0..<8)
    func everyGeneratedValueConvertsOrIsDroppedAlone(seedGroup: Int) async throws {
        try await offThePool {
            let failures = SmallStack.run {
                var failures: [String] = []
                for seed in (seedGroup * 40)..<(seedGroup * 40 + 40) {
                    var generator = Generator(state: UInt64(seed))
                    var input: [String: Any] = [:]
                    var expected: [String: JSON] = [:]
                    var droppedKeys: [String] = []
                    for index in 0..<6 {
                        generator.budget = 60
                        let (raw, json) = generator.value(depth: 2, maxDepth: 2 + generator.below(40))
                        input["p\(index)"] = raw
                        if let json { expected["p\(index)"] = json } else { droppedKeys.append("properties.p\(index)") }
                    }
                    let (value, issues) = ValueConverter.convert(input, root: "properties")
                    if let difference = Self.firstDifference(.object(value), .object(expected), path: "properties") {
                        failures.append("seed \(seed): \(difference)")
                    }
                    for key in droppedKeys where !issues.contains(where: { $0.keyPath == key }) {
                        failures.append("seed \(seed): \(key) dropped without an issue naming it")
                    }
                    if issues.contains(where: { $0.keyPath.isEmpty }) { failures.append("seed \(seed): an issue without a key path") }
                }
                return failures
            }
            #expect(failures.isEmpty, "\(failures.prefix(3))")
        }
    }

    /// Where two values first differ, or `nil` when they are equal.
    static func firstDifference(_ got: JSON, _ expected: JSON, path: String) -> String? {
        switch (got, expected) {
        case (.object(let left), .object(let right)):
            for key in Set(left.keys).union(right.keys).sorted() {
                guard let l = left[key], let r = right[key] else {
                    return "\(path).\(key): got \(left[key].map { "\($0)" } ?? "nothing"), expected \(right[key].map { "\($0)" } ?? "nothing")"
                }
                if let difference = firstDifference(l, r, path: "\(path).\(key)") { return difference }
            }
            return nil
        case (.array(let left), .array(let right)) where left.count == right.count:
            for (index, pair) in zip(left, right).enumerated() {
                if let difference = firstDifference(pair.0, pair.1, path: "\(path)[\(index)]") { return difference }
            }
            return nil
        default:
            return got == expected ? nil : "\(path): got \(got), expected \(expected)"
        }
    }

    @Test func optionalWrappedUnencodableValuesAreDroppedWithTheirPath() {
        let plain: PlainClass? = PlainClass()
        let structure: PlainStruct? = PlainStruct()
        let (value, issues) = ValueConverter.convert(
            ["bad": plain as Any, "nested": ["worse": structure as Any, "fine": 1], "kept": "yes"], root: "properties")
        #expect(value == ["nested": .object(["fine": 1]), "kept": "yes"])
        #expect(Set(issues.map(\.keyPath)) == ["properties.bad", "properties.nested.worse"])
    }

    @Test func decimalsKeepTheirDigits() {
        let (value, issues) = ValueConverter.convert(
            ["ns": NSDecimalNumber(string: "19.99"), "decimal": Decimal(string: "0.1")!, "whole": Decimal(12)], root: "properties")
        #expect(issues.isEmpty)
        #expect(JSONWriter.string(.object(value)) == #"{"decimal":0.1,"ns":19.99,"whole":12}"#)
    }
}
