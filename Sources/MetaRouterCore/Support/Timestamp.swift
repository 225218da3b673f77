import Foundation

/// ISO-8601 UTC timestamps with milliseconds (`2026-11-22T00:17:25.123Z`), formatted without
/// `DateFormatter` so the executor never allocates a formatter per event.
package enum Timestamp {
    /// The text of `date`, truncated to whole milliseconds.
    package static func string(from date: Date) -> String {
        String(decoding: ByteWriter.bytes(estimate: 24) { append(date, to: &$0) }, as: UTF8.self)
    }

    /// Appends the text of `date` (as ``string(from:)``) to `out`, with no `String` between.
    package static func append(_ date: Date, to out: inout ByteWriter) {
        let totalMillis = epochMillis(date)
        var days = totalMillis / 86_400_000
        var millisOfDay = totalMillis % 86_400_000
        if millisOfDay < 0 {
            millisOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let hour = millisOfDay / 3_600_000
        let minute = millisOfDay / 60_000 % 60
        let second = millisOfDay / 1000 % 60
        let millis = millisOfDay % 1000
        // Constant divisors only: the compiler turns them into multiplications.
        appendTwoDigits(year / 100, to: &out)
        appendTwoDigits(year % 100, to: &out)
        out.append(UInt8(ascii: "-"))
        appendTwoDigits(month, to: &out)
        out.append(UInt8(ascii: "-"))
        appendTwoDigits(day, to: &out)
        out.append(UInt8(ascii: "T"))
        appendTwoDigits(hour, to: &out)
        out.append(UInt8(ascii: ":"))
        appendTwoDigits(minute, to: &out)
        out.append(UInt8(ascii: ":"))
        appendTwoDigits(second, to: &out)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis / 100))
        appendTwoDigits(millis % 100, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// Parses an ISO-8601 timestamp with or without fractional seconds and with `Z` or a
    /// numeric offset. Returns `nil` for anything else.
    package static func date(from text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: text)
    }

    /// The first and last millisecond a timestamp can be written for: years 0000 to 9999, the
    /// four-digit years of ISO 8601.
    package static let writableMillis: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Whether `date` is finite and inside ``writableMillis``.
    package static func isWritable(_ date: Date) -> Bool {
        let millis = wholeMillis(date)
        return millis >= Double(writableMillis.lowerBound) && millis <= Double(writableMillis.upperBound)
    }

    /// Milliseconds since 1970 for `date`, held inside ``writableMillis`` (NaN counts as 1970):
    /// a date from a caller, a plugin or a clock never traps the conversion to an integer.
    package static func epochMillis(_ date: Date) -> Int64 {
        let millis = wholeMillis(date)
        guard !millis.isNaN else { return 0 }
        return Int64(min(max(millis, Double(writableMillis.lowerBound)), Double(writableMillis.upperBound)))
    }

    /// Milliseconds since 1970, rounded down, still a `Double` (NaN and infinities pass).
    private static func wholeMillis(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded(.down)
    }

    /// The last two decimal digits of `value` (which is not negative).
    private static func appendTwoDigits(_ value: Int64, to out: inout ByteWriter) {
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10))
    }

    /// Proleptic Gregorian calendar date for a day count since 1970-01-01.
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
