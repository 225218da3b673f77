import MetaRouterCore

/// Builds the models of one plan entry: names that come out the same are told apart by their
/// place in the plan (with a warning, see ``NameTable``), and nesting deeper than ``maxDepth``
/// is refused. A nested object or enum whose generated type would be the same as one met
/// earlier in the plan (the same properties with the same names and types, the same values)
/// reuses that type: the compiler's time goes per declared type, and real plans repeat their
/// `currency`, `products` and `address` schemas across hundreds of events.
final class SwiftTypeMapper {
    static let maxDepth = 32
    private static let enumReserved: Set<String> = ["rawValue", "allCases", "hashValue", "hash", "init"]
    /// The entry being mapped, for messages.
    var place = ""
    private(set) var warnings: [String] = []
    /// The names taken at the namespace's level, shared by every entry of the plan (one mapper
    /// maps them all, so the table is never copied).
    private var namespace: NameTable
    /// The namespace-level name of the first type declared for each ``ObjectModel/key`` or
    /// ``EnumModel/key``, compared byte for byte: the device tells enum values and names apart by
    /// their code points, so two canonically equivalent spellings are two types.
    private var declaredTypes: [[UInt8]: String] = [:]
    /// The namespace-level names of the types that more than one property uses.
    private(set) var sharedTypes: Set<String> = []

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
            // `null` in the list counts only where `type` allows it too (or says nothing): the
            // device checks both, so `{"type": "string", "enum": ["a", null]}` takes no `nil`.
            let allowsNull = values.contains(.null) && (types.isEmpty || nullable)
            if var model = enumeration(values.filter { $0 != .null }, typeName: typeNames.claim(nestedName, for: wireName, warnings: &warnings)) {
                if let first = declaredTypes[Array(model.key.utf8)] {
                    sharedTypes.insert(first)
                    model.flatName = first
                    model.declares = false
                } else {
                    model.flatName = namespace.claim("\(parent)_\(model.typeName)", for: wireName, warnings: &warnings)
                    declaredTypes[Array(model.key.utf8)] = model.flatName
                }
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
            let (declared, shared) = (declaredTypes, sharedTypes)
            let (element, elementNullable) = try type(
                items, nestedName: nestedName + "Item", parent: parent, in: &typeNames, wireName: wireName, depth: depth + 1)
            // An element that may be null cannot be one of a Swift array's non-optional elements;
            // the types its model registered are never declared, so no later schema may share them.
            guard !elementNullable else {
                (declaredTypes, sharedTypes) = (declared, shared)
                return (.array(.json), nullable)
            }
            return (.array(element), nullable)
        case "object":
            let hasMembers = schema["properties"]?.objectValue?.isEmpty == false || schema["required"]?.arrayValue?.isEmpty == false
            guard hasMembers else { return (.json, false) }
            let name = typeNames.claim(nestedName, for: wireName, warnings: &warnings)
            let warned = warnings.count
            let flat = namespace.claim("\(parent)_\(name)", for: wireName, warnings: &warnings)
            var model = try object(schema, typeName: name, flatName: flat, description: nil, depth: depth)
            guard let first = declaredTypes[Array(model.key.utf8)] else {
                declaredTypes[Array(model.key.utf8)] = flat
                return (.object(model), nullable)
            }
            // An earlier type is this one: the name claimed for it goes back, with its warning
            // (its nested types are earlier ones too, or the key would be new).
            namespace.release(flat)
            if warnings.count > warned, warnings[warned].contains("`\(flat)`") { warnings.remove(at: warned) }
            sharedTypes.insert(first)
            model.flatName = first
            model.declares = false
            return (.object(model), nullable)
        default:
            return (.json, false)
        }
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
    /// The model's ``EnumModel/flatName`` is left to the caller.
    private func enumeration(_ values: [JSON], typeName: @autoclosure () -> String) -> EnumModel? {
        guard !values.isEmpty else { return nil }
        var cases: [(String, String)] = []
        let strings = values.compactMap(\.stringValue)
        if strings.count == values.count {
            var table = NameTable(scope: "\(place) enum", kind: "case")
            var kept = Set<String>()
            for value in strings where kept.insert(value).inserted {
                var base = SwiftNames.member(value, fallback: "empty")
                if Self.enumReserved.contains(base) { base += "_" }
                cases.append((table.claim(base, for: value, warnings: &warnings), SwiftNames.literal(value)))
            }
            return EnumModel(typeName: typeName(), flatName: "", rawType: "Swift.String", cases: cases)
        }
        let integers = values.compactMap(Self.integer)
        guard integers.count == values.count else { return nil }
        var kept = Set<Int64>()
        for value in integers where kept.insert(value).inserted {
            let name = value < 0 ? "_minus\(String(String(value).dropFirst()))" : "_\(value)"
            cases.append((name, String(value)))
        }
        return EnumModel(typeName: typeName(), flatName: "", rawType: "Swift.Int", cases: cases)
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
