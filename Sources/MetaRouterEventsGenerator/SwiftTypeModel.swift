import MetaRouterCore

/// What a plan's JSON Schema becomes in Swift: `string` → `String`, `integer` → `Int`,
/// `number` → `Double`, `boolean` → `Bool`, `format: date-time` → `Date`, arrays of their
/// items, objects with `properties` → nested structs, string `enum` / `const` → a Swift enum with
/// raw values. What the type system cannot say (a union of types, an object without declared
/// properties, `minimum`, `pattern`, …) becomes the SDK's `JSON` or stays the on-device plan's
/// run-time check.
indirect enum SwiftType {
    case string, int, double, bool, date, json
    case array(SwiftType)
    case object(ObjectModel)
    case enumeration(EnumModel)

    /// The type as written inside its enclosing struct.
    var spelled: String {
        switch self {
        case .string: return "String"
        case .int: return "Int"
        case .double: return "Double"
        case .bool: return "Bool"
        case .date: return "Date"
        case .json: return "JSON"
        case .array(let element): return "[\(element.spelled)]"
        case .object(let model): return model.typeName
        case .enumeration(let model): return model.typeName
        }
    }
}

struct PropertyModel {
    let wireName: String
    let swiftName: String
    let type: SwiftType
    let required: Bool
    let description: String?
}

struct ObjectModel {
    let typeName: String
    let properties: [PropertyModel]
    let description: String?
}

struct EnumModel {
    let typeName: String
    let cases: [(swiftName: String, rawValue: String)]
}

/// Builds the models of one plan entry, naming what collides and refusing nesting deeper than
/// ``maxDepth``.
struct SwiftTypeMapper {
    static let maxDepth = 32
    private static let enumReserved: Set<String> = ["rawValue", "allCases", "hashValue", "hash", "init"]
    let place: String

    func object(_ schema: JSON, typeName: String, description: String?, depth: Int = 0) throws(GenerationError) -> ObjectModel {
        guard depth <= Self.maxDepth else {
            throw GenerationError("\(place): objects nested deeper than \(Self.maxDepth) levels; flatten the schema or leave the inner levels without `properties`")
        }
        let declared = schema["properties"]?.objectValue ?? [:]
        let requiredOrder = (schema["required"]?.arrayValue ?? []).compactMap(\.stringValue)
        let required = Set(requiredOrder)
        var properties: [PropertyModel] = []
        var taken: [String: String] = [:]
        var nestedTypes: [String: String] = [:]
        // Required properties in the order of `required` (an array, so the plan's order), then
        // the optional ones by name: the order of the initializer's parameters.
        var seen = Set<String>()
        let ordered = requiredOrder.filter { declared[$0] != nil && seen.insert($0).inserted }
            + declared.keys.filter { !required.contains($0) }.sorted()
        for wireName in ordered {
            let swiftName = SwiftNames.member(wireName, fallback: "property")
            if let other = taken[swiftName] {
                throw GenerationError("\(place): properties \(SwiftNames.literal(other)) and \(SwiftNames.literal(wireName)) both become `\(swiftName)` in Swift; rename one in the plan")
            }
            taken[swiftName] = wireName
            let nestedName = SwiftNames.type(wireName, fallback: "Property")
            let type = try self.type(declared[wireName]!, nestedName: nestedName, depth: depth + 1)
            if case let name? = Self.nestedTypeName(type) {
                if let other = nestedTypes[name] {
                    throw GenerationError("\(place): properties \(SwiftNames.literal(other)) and \(SwiftNames.literal(wireName)) both need a type `\(name)`; rename one in the plan")
                }
                nestedTypes[name] = wireName
            }
            properties.append(PropertyModel(
                wireName: wireName, swiftName: swiftName, type: type, required: required.contains(wireName),
                description: declared[wireName]?["description"]?.stringValue))
        }
        return ObjectModel(typeName: typeName, properties: properties, description: description ?? schema["description"]?.stringValue)
    }

    private static func nestedTypeName(_ type: SwiftType) -> String? {
        switch type {
        case .object(let model): return model.typeName
        case .enumeration(let model): return model.typeName
        case .array(let element): return nestedTypeName(element)
        default: return nil
        }
    }

    private func type(_ schema: JSON, nestedName: String, depth: Int) throws(GenerationError) -> SwiftType {
        guard depth <= Self.maxDepth else {
            throw GenerationError("\(place): schemas nested deeper than \(Self.maxDepth) levels; flatten the schema")
        }
        if let values = schema["enum"]?.arrayValue ?? schema["const"].map({ [$0] }) {
            let strings = values.compactMap(\.stringValue)
            if !strings.isEmpty, strings.count == values.count { return .enumeration(enumeration(strings, typeName: nestedName)) }
        }
        switch Self.singleType(schema) {
        case "string": return schema["format"]?.stringValue == "date-time" ? .date : .string
        case "integer": return .int
        case "number": return .double
        case "boolean": return .bool
        case "array":
            guard let items = schema["items"], items.objectValue != nil else { return .array(.json) }
            return .array(try type(items, nestedName: nestedName + "Item", depth: depth + 1))
        case "object":
            guard schema["properties"]?.objectValue?.isEmpty == false else { return .json }
            return .object(try object(schema, typeName: nestedName, description: nil, depth: depth))
        default:
            return .json
        }
    }

    /// The schema's one type (a nullable type counts as the type), or `nil`.
    private static func singleType(_ schema: JSON) -> String? {
        if let single = schema["type"]?.stringValue { return single }
        let types = (schema["type"]?.arrayValue ?? []).compactMap(\.stringValue).filter { $0 != "null" }
        if types.count == 1 { return types[0] }
        if types.isEmpty, schema["properties"]?.objectValue != nil { return "object" }
        return nil
    }

    /// The cases of a string enum. Values that come out the same (`"Gold"` and `"gold"`) are
    /// told apart by their place in the plan's list: `.gold`, `.gold_2`.
    private func enumeration(_ values: [String], typeName: String) -> EnumModel {
        var cases: [(String, String)] = []
        var taken = Set<String>()
        for value in values where !cases.contains(where: { $0.1 == value }) {
            var base = SwiftNames.member(value, fallback: "empty")
            if Self.enumReserved.contains(base) { base += "_" }
            var name = base
            var index = 2
            while taken.contains(name) {
                name = "\(base)_\(index)"
                index += 1
            }
            taken.insert(name)
            cases.append((name, value))
        }
        return EnumModel(typeName: typeName, cases: cases)
    }
}
