import Foundation
import MetaRouterCore

/// One way a value broke its schema. It prints as `path: rule: message`.
public struct PlanViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where, e.g. `properties.items[1].price`.
    public var path: String
    /// The keyword that failed (`type`, `required`, `enum`, …; `unplanned` for an event the
    /// plan does not list).
    public var rule: String
    /// In words.
    public var message: String

    /// A violation.
    package init(path: String, rule: String, message: String) {
        self.path = path
        self.rule = rule
        self.message = message
    }

    public var description: String { "\(path): \(rule): \(message)" }
}

/// The JSON Schema (draft-07) subset tracking plans use, compiled once: `type`, `required`,
/// `properties`, `additionalProperties`, `enum`, `const`, `pattern`, `minimum` / `maximum`,
/// `exclusiveMinimum` / `exclusiveMaximum`, `minLength` / `maxLength` (in Unicode code
/// points), `items` (one schema, or one per position), `minItems` / `maxItems`, and the
/// Boolean schemas `true` / `false`. Other keywords are ignored, as a validator ignores
/// keywords it does not know. Compiling and validating are depth-limited.
package indirect enum JSONSchema: Sendable {
    /// `true` (anything) or `false` (nothing).
    case boolean(Bool)
    /// An object schema.
    case rules(Rules)

    /// JSON Schema's type names as bits, so a type check is a mask test, not string compares.
    struct Types: OptionSet, Sendable {
        let rawValue: UInt8
        static let null = Types(rawValue: 1 << 0)
        static let boolean = Types(rawValue: 1 << 1)
        static let integer = Types(rawValue: 1 << 2)
        static let number = Types(rawValue: 1 << 3)
        static let string = Types(rawValue: 1 << 4)
        static let array = Types(rawValue: 1 << 5)
        static let object = Types(rawValue: 1 << 6)
        static let names: [(String, Types)] = [
            ("null", .null), ("boolean", .boolean), ("integer", .integer), ("number", .number), ("string", .string),
            ("array", .array), ("object", .object),
        ]
    }

    /// A `pattern`: the linear matcher when the pattern is in its subset, else
    /// `NSRegularExpression` (which also vetted the pattern when the plan loaded).
    struct Pattern: Sendable {
        let source: String
        let simple: SimplePattern?
        let expression: NSRegularExpression

        func matches(_ text: String) -> Bool {
            if let simple { return simple.matches(text) }
            return expression.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
        }
    }

    /// The keywords of an object schema.
    package struct Rules: Sendable {
        var types: Types?
        var required: [String] = []
        var properties: [String: JSONSchema] = [:]
        var additionalProperties: JSONSchema?
        var enumeration: [JSON]?
        var constant: JSON?
        var pattern: Pattern?
        var minimum: Double?
        var maximum: Double?
        var exclusiveMinimum: Double?
        var exclusiveMaximum: Double?
        var minLength: Int?
        var maxLength: Int?
        var items: JSONSchema?
        var tupleItems: [JSONSchema]?
        var minItems: Int?
        var maxItems: Int?
    }

    /// A schema nested deeper than this is refused when compiled.
    package static let maximumDepth = 64

    /// A schema that cannot be compiled, with where and why.
    package struct CompileError: Error, Sendable, CustomStringConvertible {
        /// Where in the schema.
        package var path: String
        /// Why.
        package var message: String
        /// `path: message`.
        package var description: String { "\(path): \(message)" }
    }

    /// Compiles `json` (a schema object or a Boolean).
    package init(_ json: JSON, path: String = "#") throws {
        self = try Self.compile(json, path: path, depth: 1)
    }

    private static func compile(_ json: JSON, path: String, depth: Int) throws -> JSONSchema {
        guard depth <= maximumDepth else { throw CompileError(path: path, message: "nested deeper than \(maximumDepth) levels") }
        if case .bool(let value) = json { return .boolean(value) }
        guard let object = json.objectValue else { throw CompileError(path: path, message: "a schema is an object or a Boolean") }
        var rules = Rules()
        if let type = object["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? type.stringValue.map { [$0] } ?? []
            var types: Types = []
            for name in names {
                guard let bit = Types.names.first(where: { $0.0 == name })?.1 else {
                    throw CompileError(path: "\(path)/type", message: "unknown type \"\(name)\"")
                }
                types.insert(bit)
            }
            guard !names.isEmpty, names.count == (type.arrayValue?.count ?? 1) else { throw CompileError(path: "\(path)/type", message: "unknown type") }
            rules.types = types
        }
        if let required = object["required"] {
            guard let names = required.arrayValue?.compactMap(\.stringValue), names.count == required.arrayValue?.count else {
                throw CompileError(path: "\(path)/required", message: "required is a list of names")
            }
            rules.required = names
        }
        if let properties = object["properties"] {
            guard let members = properties.objectValue else { throw CompileError(path: "\(path)/properties", message: "properties is an object") }
            for (name, schema) in members { rules.properties[name] = try compile(schema, path: "\(path)/properties/\(name)", depth: depth + 1) }
        }
        if let additional = object["additionalProperties"] {
            rules.additionalProperties = try compile(additional, path: "\(path)/additionalProperties", depth: depth + 1)
        }
        if let values = object["enum"] {
            guard let list = values.arrayValue else { throw CompileError(path: "\(path)/enum", message: "enum is a list") }
            rules.enumeration = list
        }
        rules.constant = object["const"]
        if let pattern = object["pattern"] {
            guard let text = pattern.stringValue, let expression = try? NSRegularExpression(pattern: text) else {
                throw CompileError(path: "\(path)/pattern", message: "not a valid regular expression")
            }
            rules.pattern = Pattern(source: text, simple: SimplePattern(text), expression: expression)
        }
        rules.minimum = try number(object, "minimum", path)
        rules.maximum = try number(object, "maximum", path)
        rules.exclusiveMinimum = try number(object, "exclusiveMinimum", path)
        rules.exclusiveMaximum = try number(object, "exclusiveMaximum", path)
        rules.minLength = try count(object, "minLength", path)
        rules.maxLength = try count(object, "maxLength", path)
        rules.minItems = try count(object, "minItems", path)
        rules.maxItems = try count(object, "maxItems", path)
        if let items = object["items"] {
            if let list = items.arrayValue {
                rules.tupleItems = try list.enumerated().map { try compile($1, path: "\(path)/items/\($0)", depth: depth + 1) }
            } else {
                rules.items = try compile(items, path: "\(path)/items", depth: depth + 1)
            }
        }
        return .rules(rules)
    }

    private static func number(_ object: [String: JSON], _ key: String, _ path: String) throws -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue else { throw CompileError(path: "\(path)/\(key)", message: "\(key) is a number") }
        return number
    }

    private static func count(_ object: [String: JSON], _ key: String, _ path: String) throws -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number >= 0, number == number.rounded(), number < 1e15 else {
            throw CompileError(path: "\(path)/\(key)", message: "\(key) is a non-negative integer")
        }
        return Int(number)
    }
}
