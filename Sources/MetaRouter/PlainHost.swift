/// The ingestion host read without Foundation's URL parser, when its text is plain: `http` or
/// `https` (any case), `://`, a host of ASCII letters, digits, hyphens and dots (no empty
/// label), an optional port of 1–5 digits up to 65535, and an optional path of `/` and
/// unreserved characters (letters, digits, `-._~`). Any other text (user info, a query, an
/// escape, an IPv6 literal, non-ASCII) is not plain, and is parsed with `URL(string:)` at the
/// call. The first `URL(string:)` in a process costs an app's `initialize` about 0.1 ms, so for
/// plain text the URL is made on the instance's executor; every plain text is one that
/// `URL(string:)` parses to the same scheme, host and port (`PlainHostTests`).
struct PlainHost: Sendable {
    /// `http` or `https`, lowercased.
    let scheme: String
    /// The host, as written.
    let host: String
    /// The port, when one is written.
    let port: Int?

    /// Reads `text` (already trimmed, without its trailing slash); `nil` when it is not plain.
    init?(_ text: String) {
        var bytes = Array(text.utf8)[...]
        let lowered = bytes.prefix(8).map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        if lowered.starts(with: "https://".utf8) {
            scheme = "https"
            bytes = bytes.dropFirst(8)
        } else if lowered.starts(with: "http://".utf8) {
            scheme = "http"
            bytes = bytes.dropFirst(7)
        } else {
            return nil
        }
        let hostEnd = bytes.firstIndex { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") } ?? bytes.endIndex
        let hostBytes = bytes[..<hostEnd]
        guard !hostBytes.isEmpty, hostBytes.count <= 253, hostBytes.allSatisfy(Self.isHostByte),
            hostBytes.first != UInt8(ascii: "."), hostBytes.last != UInt8(ascii: "."),
            !zip(hostBytes, hostBytes.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") })
        else { return nil }
        host = String(decoding: hostBytes, as: UTF8.self)
        var rest = bytes[hostEnd...]
        if rest.first == UInt8(ascii: ":") {
            let digits = rest.dropFirst().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard (1...5).contains(digits.count) else { return nil }
            let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard value <= 65_535 else { return nil }
            port = value
            rest = rest.dropFirst(1 + digits.count)
        } else {
            port = nil
        }
        guard rest.isEmpty || (rest.first == UInt8(ascii: "/") && rest.allSatisfy(Self.isPathByte)) else { return nil }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    private static func isPathByte(_ byte: UInt8) -> Bool {
        isHostByte(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }
}
