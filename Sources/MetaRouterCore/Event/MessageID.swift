import Foundation

/// Message identifiers in MetaRouter's format, `<epochMillis>-<UUID>`.
package enum MessageID {
    /// A new identifier for a call made at `date`.
    package static func make(at date: Date) -> String {
        // Built in place: digits, a dash and the UUID in one string (no interpolation, no
        // intermediate strings; this runs on the caller's thread for every call).
        let millis = Timestamp.epochMillis(date)
        return String(unsafeUninitializedCapacity: 64) { buffer in
            var position = 0
            if millis < 0 {
                buffer[0] = UInt8(ascii: "-")
                position = 1
            }
            var magnitude = millis.magnitude
            var digits = 0
            repeat {
                digits += 1
                magnitude /= 10
            } while magnitude > 0
            magnitude = millis.magnitude
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                buffer[position + offset] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            position += digits
            buffer[position] = UInt8(ascii: "-")
            return RandomIdentifier.writeUUID(into: buffer, at: position + 1)
        }
    }
}
