import Foundation

/// Finds the message ids of a batch body for the load test's collector, which shares the
/// machine with the server it measures and so must cost little per event.
public enum MessageIDScan {
    private static let key = Array(#""messageId""#.utf8)
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let colon = UInt8(ascii: ":")

    /// The ids of a batch body written as compact JSON, found without parsing it: every
    /// `"messageId"` in the body must be followed by `:"` and an id without escapes. Returns nil
    /// when that does not hold or the body is not one object; ``parsedIDs(_:)`` then decides.
    /// A `"messageId"` key nested inside an event (in its properties) would count as one more
    /// id; the load test's events carry none.
    public static func scannedIDs(_ body: UnsafeRawBufferPointer) -> [MessageID]? {
        guard let base = body.baseAddress, body.count >= 2, body.first == UInt8(ascii: "{"),
            body.last == UInt8(ascii: "}")
        else { return nil }
        var ids: [MessageID] = []
        var offset = 0
        while let start = nextKeyEnd(in: body, at: base, from: offset) {
            guard start + 2 <= body.count, body[start] == colon, body[start + 1] == quote else { return nil }
            var end = start + 2
            while end < body.count, body[end] != quote {
                if body[end] == backslash { return nil }
                end += 1
            }
            guard end < body.count else { return nil }
            ids.append(MessageID(UnsafeRawBufferPointer(rebasing: body[(start + 2)..<end])))
            offset = end + 1
        }
        return ids.isEmpty ? nil : ids
    }

    /// Where the next `"messageId"` at or after `offset` ends. Looks for its capital `I` (rare in
    /// JSON) with `memchr`, then compares the bytes around it.
    private static func nextKeyEnd(in body: UnsafeRawBufferPointer, at base: UnsafeRawPointer, from offset: Int) -> Int? {
        let capital = 8  // the index of "I" in `key`
        var position = offset + capital
        while position < body.count,
            let found = memchr(base + position, Int32(UInt8(ascii: "I")), body.count - position)
        {
            let index = base.distance(to: UnsafeRawPointer(found))
            let start = index - capital
            if start + key.count <= body.count, key.indices.allSatisfy({ body[start + $0] == key[$0] }) {
                return start + key.count
            }
            position = index + 1
        }
        return nil
    }

    /// The ids of a batch body parsed as JSON (`{"batch": [{"messageId": …}, …]}`), or nil when
    /// it is not such a body.
    public static func parsedIDs(_ body: Data) -> [MessageID]? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let batch = object["batch"] as? [Any]
        else { return nil }
        var ids: [MessageID] = []
        for event in batch {
            guard let id = (event as? [String: Any])?["messageId"] as? String else { return nil }
            ids.append(MessageID(id))
        }
        return ids
    }
}
