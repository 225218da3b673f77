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

    /// What makes two types the same Swift type: the kind, and for a declared one its name in
    /// the parent and the type it stands for (see ``ObjectModel/key``).
    var key: String {
        switch self {
        case .string: return "s"
        case .int: return "i"
        case .double: return "d"
        case .bool: return "b"
        case .date: return "t"
        case .json: return "j"
        case .array(let element): return "[\(element.key)]"
        case .object(let model): return "o\(Self.field(model.typeName))\(Self.field(model.flatName))"
        case .enumeration(let model): return "e\(Self.field(model.typeName))\(Self.field(model.flatName))"
        }
    }

    /// `text` with its length, so no two lists of fields run together the same way.
    static func field(_ text: String?) -> String {
        guard let text else { return "-" }
        return "\(text.utf8.count):\(text)"
    }

    /// The local and the namespace-level name of the type this type refers to, if any.
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
    var flatName: String
    let properties: [PropertyModel]
    let description: String?
    /// This model's type is declared here; `false` for an object whose schema an earlier one
    /// of the plan has too: its parent's `typealias` names that one's type (``flatName``).
    var declares = true

    /// What the generated struct says, apart from its own names: two nested objects with the
    /// same key are one Swift type, declared once.
    var key: String {
        var key = "O" + SwiftType.field(description)
        for property in properties {
            key += SwiftType.field(property.wireName) + SwiftType.field(property.swiftName) + SwiftType.field(property.type.key)
            key += (property.required ? "r" : "o") + (property.nullable ? "n" : "v") + SwiftType.field(property.description)
        }
        return key
    }
}

struct EnumModel {
    let typeName: String
    /// The name at the namespace's level (see ``ObjectModel/flatName``).
    var flatName: String
    /// `Swift.String` or `Swift.Int`.
    let rawType: String
    /// Each case's Swift name and its raw value as a Swift literal.
    let cases: [(swiftName: String, literal: String)]
    /// This model's type is declared here; `false` for an enum whose values an earlier one of
    /// the plan has too (see ``ObjectModel/declares``).
    var declares = true

    /// Two enums with the same key are one Swift type, declared once.
    var key: String {
        "E" + rawType + cases.map { SwiftType.field($0.swiftName) + SwiftType.field($0.literal) }.joined()
    }
}
