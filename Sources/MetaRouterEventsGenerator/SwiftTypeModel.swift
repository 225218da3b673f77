import MetaRouterCore

/// What a plan's JSON Schema becomes in Swift: `string` → `String`, `integer` → `Int`,
/// `number` → `Double`, `boolean` → `Bool`, `format: date-time` → `Date`, arrays of their
/// items, objects with `properties` (or `required`) → nested structs, an `enum` / `const` of
/// strings or of integers → a Swift enum with those raw values (`null` among them makes the
/// property optional). What the type system cannot say (a union of types, an object without
/// declared properties, `minimum`, `pattern`, …) becomes the SDK's `JSON` or stays the
/// on-device plan's run-time check. Types are written with their module, so no planned name
/// hides them.
indirect enum SwiftType {
    case string, int, double, bool, date, json
    case array(SwiftType)
    case object(ObjectModel)
    case enumeration(EnumModel)

    /// The type as written inside its enclosing struct.
    var spelled: String {
        switch self {
        case .string: return "Swift.String"
        case .int: return "Swift.Int"
        case .double: return "Swift.Double"
        case .bool: return "Swift.Bool"
        case .date: return "Foundation.Date"
        case .json: return "MetaRouter.JSON"
        case .array(let element): return "[\(element.spelled)]"
        case .object(let model): return model.typeName
        case .enumeration(let model): return model.typeName
        }
    }

    /// The local and the namespace-level name of the type this type declares, if any.
    var declared: (typeName: String, flatName: String)? {
        switch self {
        case .object(let model): return (model.typeName, model.flatName)
        case .enumeration(let model): return (model.typeName, model.flatName)
        case .array(let element): return element.declared
        default: return nil
        }
    }
}

struct PropertyModel {
    let wireName: String
    let swiftName: String
    let type: SwiftType
    /// In the schema's `required`: the initializer's parameter has no default.
    let required: Bool
    /// `null` is among the allowed values: the Swift type is optional even when required,
    /// and a required one sends `null` for `nil`.
    let nullable: Bool
    let description: String?

    /// `T?` unless required and not nullable.
    var isOptional: Bool { !required || nullable }
}

struct ObjectModel {
    /// The name inside its parent (an event's and the traits' own name at the top).
    let typeName: String
    /// The name at the namespace's level, where every type is declared (a nested one is
    /// reached through a `typealias` in its parent: nesting 32 levels deep made the compiler's
    /// time grow exponentially).
    let flatName: String
    let properties: [PropertyModel]
    let description: String?
}

struct EnumModel {
    let typeName: String
    /// The name at the namespace's level (see ``ObjectModel/flatName``).
    let flatName: String
    /// `Swift.String` or `Swift.Int`.
    let rawType: String
    /// Each case's Swift name and its raw value as a Swift literal.
    let cases: [(swiftName: String, literal: String)]
}

/// Builds the models of one plan entry: names that come out the same are told apart by their
/// place in the plan (with a warning, see ``NameTable``), and nesting deeper than ``maxDepth``
/// is refused.
final class SwiftTypeMapper {
    static let maxDepth = 32
    private static let enumReserved: Set<String> = ["rawValue", "allCases", "hashValue", "hash", "init"]
    /// The entry being mapped, for messages.
    var place = ""
    private(set) var warnings: [String] = []
    /// The names taken at the namespace's level, shared by every entry of the plan (one mapper
    /// maps them all, so the table is never copied).
    private var namespace: NameTable

    init(namespace: NameTable) {
        self.namespace = namespace
    }

    func object(_ schema: JSON, typeName: String, flatName: String? = nil, description: String?, depth: Int = 0) throws(GenerationError) -> ObjectModel {
        guard depth <= Self.maxDepth else {
            throw GenerationError("\(place): objects nested deeper than \(Self.maxDepth) levels; flatten the schema or leave the inner levels without `properties`")
        }
        let declared = schema["properties"]?.objectValue ?? [:]
        let requiredOrder = (schema["required"]?.arrayValue ?? []).compactMap(\.stringValue)
        let required = Set(requiredOrder)
        // Required properties in the order of `required` (an array, so the plan's order; one
        // the schema does not declare is `JSON`), then the optional ones by name: the order of
        // the initializer's parameters.
        var seen = Set<String>()
        let ordered = requiredOrder.filter { seen.insert($0).inserted } + declared.keys.filter { !required.contains($0) }.sorted()
        let scope = "\(place) \(typeName)"
        var names = NameTable(scope: scope, kind: "property")
        let swiftNames = ordered.map { names.claim(SwiftNames.member($0, fallback: "property"), for: $0, warnings: &warnings) }
        // A nested type takes a name no property has (they differ only for names starting
        // with a digit: `_1st`).
        var typeNames = NameTable(scope: scope, kind: "nested type", reserved: Dictionary(uniqueKeysWithValues: zip(swiftNames, ordered)))
        var properties: [PropertyModel] = []
        for (wireName, swiftName) in zip(ordered, swiftNames) {
            guard let member = declared[wireName] else {
                properties.append(PropertyModel(wireName: wireName, swiftName: swiftName, type: .json, required: true, nullable: false, description: nil))
                continue
            }
            let (type, nullable) = try self.type(
                member, nestedName: SwiftNames.type(wireName, fallback: "Property"), parent: flatName ?? typeName, in: &typeNames, wireName: wireName,
                depth: depth + 1)
            properties.append(PropertyModel(
                wireName: wireName, swiftName: swiftName, type: type, required: required.contains(wireName), nullable: nullable,
                description: member["description"]?.stringValue))
        }
        return ObjectModel(
            typeName: typeName, flatName: flatName ?? typeName, properties: properties, description: description ?? schema["description"]?.stringValue)
    }

    /// The Swift type of `schema`, and whether `null` is allowed too.
    private func type(
        _ schema: JSON, nestedName: String, parent: String, in typeNames: inout NameTable, wireName: String, depth: Int
    ) throws(GenerationError) -> (SwiftType, Bool) {
        guard depth <= Self.maxDepth else {
            throw GenerationError("\(place): schemas nested deeper than \(Self.maxDepth) levels; flatten the schema")
        }
        let types = Self.types(schema)
        let nullable = types.contains("null")
        if let values = schema["enum"]?.arrayValue ?? schema["const"].map({ [$0] }) {
            let allowsNull = values.contains(.null)
            if let model = enumeration(values.filter { $0 != .null }, names: { self.claim(nestedName, parent: parent, in: &typeNames, wireName: wireName) }) {
                return (.enumeration(model), allowsNull)
            }
            return (.json, false)
        }
        let single = Set(types.filter { $0 != "null" })
        let kind = single.count == 1 ? single.first : (types.isEmpty && (schema["properties"] != nil || schema["required"] != nil) ? "object" : nil)
        switch kind {
        case "string": return (schema["format"]?.stringValue == "date-time" ? .date : .string, nullable)
        case "integer": return (.int, nullable)
        case "number": return (.double, nullable)
        case "boolean": return (.bool, nullable)
        case "array":
            guard let items = schema["items"], items.objectValue != nil else { return (.array(.json), nullable) }
            let (element, elementNullable) = try type(
                items, nestedName: nestedName + "Item", parent: parent, in: &typeNames, wireName: wireName, depth: depth + 1)
            // An element that may be null cannot be one of a Swift array's non-optional elements.
            return (elementNullable ? .array(.json) : .array(element), nullable)
        case "object":
            let hasMembers = schema["properties"]?.objectValue?.isEmpty == false || schema["required"]?.arrayValue?.isEmpty == false
            guard hasMembers else { return (.json, false) }
            let (name, flat) = claim(nestedName, parent: parent, in: &typeNames, wireName: wireName)
            let model = try object(schema, typeName: name, flatName: flat, description: nil, depth: depth)
            return (.object(model), nullable)
        default:
            return (.json, false)
        }
    }

    /// A nested type's name in its parent and at the namespace's level (`Parent_Name`).
    private func claim(_ nestedName: String, parent: String, in typeNames: inout NameTable, wireName: String) -> (String, String) {
        let name = typeNames.claim(nestedName, for: wireName, warnings: &warnings)
        return (name, namespace.claim("\(parent)_\(name)", for: wireName, warnings: &warnings))
    }

    /// The schema's `type` as a list (`"string"` → `["string"]`).
    private static func types(_ schema: JSON) -> [String] {
        if let single = schema["type"]?.stringValue { return [single] }
        return (schema["type"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// An enum of `values` (no `null` among them) when they are all strings or all integers,
    /// else `nil` (the property is `JSON`). Values Swift counts as equal (`"é"` precomposed and
    /// decomposed) keep the first; case names that come out the same are told apart by their
    /// place in the plan's list: `.gold`, `.gold_2`.
    private func enumeration(_ values: [JSON], names: () -> (String, String)) -> EnumModel? {
        guard !values.isEmpty else { return nil }
        var cases: [(String, String)] = []
        let strings = values.compactMap(\.stringValue)
        if strings.count == values.count {
            var table = NameTable(scope: "\(place) enum", kind: "case")
            var kept: [String] = []
            for value in strings where !kept.contains(value) {
                kept.append(value)
                var base = SwiftNames.member(value, fallback: "empty")
                if Self.enumReserved.contains(base) { base += "_" }
                cases.append((table.claim(base, for: value, warnings: &warnings), SwiftNames.literal(value)))
            }
            let (name, flat) = names()
            return EnumModel(typeName: name, flatName: flat, rawType: "Swift.String", cases: cases)
        }
        let integers = values.compactMap(Self.integer)
        guard integers.count == values.count else { return nil }
        var kept = Set<Int64>()
        for value in integers where kept.insert(value).inserted {
            let name = value < 0 ? "_minus\(String(String(value).dropFirst()))" : "_\(value)"
            cases.append((name, String(value)))
        }
        let (name, flat) = names()
        return EnumModel(typeName: name, flatName: flat, rawType: "Swift.Int", cases: cases)
    }

    /// An integer in JSON Schema's sense (`2` and `2.0`) that fits an `Int`, else `nil`.
    private static func integer(_ value: JSON) -> Int64? {
        switch value {
        case .int(let number): return number
        case .double(let number): return number == number.rounded() && abs(number) < 9.0e15 ? Int64(number) : nil
        default: return nil
        }
    }
}
