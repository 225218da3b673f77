import Foundation

extension JSON {
    /// A date as the wire carries it: ISO 8601 in UTC with milliseconds,
    /// e.g. `"2026-11-22T13:40:49.123Z"`. For custom destinations and tools that write
    /// timestamps the way the SDK does.
    ///
    /// - Parameter date: The instant, written as ISO 8601 with milliseconds.
    public init(timestamp date: Date) {
        self = .string(Timestamp.string(from: date))
    }

    /// The date of a wire timestamp (ISO 8601, with or without fractional seconds), or `nil`
    /// when this is not a string in that form.
    public var timestampValue: Date? {
        stringValue.flatMap(Timestamp.date(from:))
    }
}
