import Foundation

/// A JSON value with distinct integer and floating-point cases.
///
/// Integers stay exact (no `Double` or `Decimal` round trip), so `19.99` is written as `19.99`
/// and `9007199254740993` as `9007199254740993`. `NaN` and infinities are never stored: the
/// conversion at the API boundary rejects them.
///
/// Literals build values (`["sku": "A-1", "price": 19.99]`; a repeated key keeps its last
/// value), `Codable` reads and writes any JSON value (integers kept exact), and `description`
/// is the compact JSON text with keys sorted.
public enum JSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer above `Int64.max`; smaller values use ``int(_:)``.
    case uint(UInt64)
    /// A finite floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// An ordered array.
    case array([JSON])
    /// An object; keys are written in sorted order.
    case object([String: JSON])
}

extension JSON {
    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: [String: JSON]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array, when this is an array.
    public var arrayValue: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The Boolean, when this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, when this is any numeric case.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The number as an `Int64`, when this is an integer that fits.
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .uint(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// `true` for `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member at `key`, when this is an object.
    ///
    /// - Parameter key: A key of an object.
    /// - Returns: Its value; `nil` when there is none or this is not an object.
    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }
}

extension JSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        // One insertion per member (a repeated key keeps its last value): the standard
        // library's `uniquingKeysWith` merge costs a format building an object per event more.
        var members = [String: JSON](minimumCapacity: elements.count)
        for (key, value) in elements { members[key] = value }
        self = .object(members)
    }
}

extension JSON: CustomStringConvertible {
    public var description: String { JSONWriter.string(self) }
}

extension [String: JSON] {
    /// The members in the order of their keys. Every module sorts an object through this one
    /// function, so a binary holds one copy of the standard library's sort for it, not one per
    /// module that sorts.
    @inline(never)
    package func sortedByKey() -> [(key: String, value: JSON)] { sorted { $0.key < $1.key } }
}
