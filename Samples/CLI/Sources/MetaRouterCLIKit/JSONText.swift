import Foundation
import MetaRouter

/// JSON text to and from ``JSON`` values, through Foundation's coders (``JSON`` is `Codable`).
public enum JSONText {
    /// Parses JSON text.
    ///
    /// - Parameter data: UTF-8 JSON text; any value may be at the top.
    /// - Returns: The value.
    /// - Throws: Foundation's `DecodingError` when it is not JSON.
    public static func parse(_ data: Data) throws -> JSON { try JSONDecoder().decode(JSON.self, from: data) }

    /// Parses JSON text.
    ///
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: The value.
    /// - Throws: Foundation's `DecodingError` when it is not JSON.
    public static func parse(_ bytes: [UInt8]) throws -> JSON { try parse(Data(bytes)) }

    /// Parses JSON text.
    ///
    /// - Parameter text: JSON text.
    /// - Returns: The value.
    /// - Throws: Foundation's `DecodingError` when it is not JSON.
    public static func parse(_ text: String) throws -> JSON { try parse(Data(text.utf8)) }

    /// The UTF-8 JSON text of a value, keys sorted.
    ///
    /// - Parameter value: The value.
    /// - Returns: Its text.
    public static func bytes(_ value: JSON) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("null".utf8))
    }
}
