/// Finds email addresses, Luhn-valid payment card numbers and credentials (a `Bearer` token, a
/// URL query value named like a secret) in a string, in one pass over its UTF-8 bytes with no
/// regular expression, so a string with none costs a scan and nothing more.
enum PIIDetector {
    /// The string with every email address replaced by `<email>`, every card number by
    /// `<card>` and every credential by `<token>`, or `nil` when it contains none.
    static func replacing(in text: String) -> String? {
        var atSigns = 0
        var digits = 0
        var equals = 0
        var bearer = 0
        var sawBearer = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "@") {
                atSigns += 1
            } else if isDigit(byte) {
                digits += 1
            } else if byte == UInt8(ascii: "=") {
                equals += 1
            }
            // "bearer", any case, as consecutive bytes.
            bearer = (byte | 0x20) == bearerWord[bearer] ? bearer + 1 : ((byte | 0x20) == bearerWord[0] ? 1 : 0)
            if bearer == bearerWord.count {
                sawBearer = true
                bearer = 0
            }
        }
        guard atSigns > 0 || digits >= 13 || equals > 0 || sawBearer else { return nil }
        let bytes = Array(text.utf8)
        var spans: [(range: Range<Int>, replacement: String)] = []
        if sawBearer || equals > 0 { spans += credentialSpans(in: bytes).map { ($0, PIIScrubber.tokenReplacement) } }
        if atSigns > 0 {
            spans += emailSpans(in: bytes).filter { email in !spans.contains { $0.range.overlaps(email) } }
                .map { ($0, PIIScrubber.emailReplacement) }
        }
        if digits >= 13 {
            spans += cardSpans(in: bytes).filter { card in !spans.contains { $0.range.overlaps(card) } }
                .map { ($0, PIIScrubber.cardReplacement) }
        }
        guard !spans.isEmpty else { return nil }
        spans.sort { $0.range.lowerBound < $1.range.lowerBound }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var position = 0
        for span in spans {
            output += bytes[position..<span.range.lowerBound]
            output += span.replacement.utf8
            position = span.range.upperBound
        }
        output += bytes[position...]
        return String(decoding: output, as: UTF8.self)
    }

    /// `local@domain.tld`: a local part of letters, digits and `._%+-`; a domain of labels of
    /// letters, digits and hyphens, with at least one dot and a final label of two or more
    /// letters.
    static func emailSpans(in bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var searchFrom = 0
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "@") else { continue }
            var start = index
            while start > searchFrom, isLocalPart(bytes[start - 1]) { start -= 1 }
            guard start < index else { continue }
            var end = index + 1
            while end < bytes.count, isDomainPart(bytes[end]) { end += 1 }
            // A sentence's full stop or a trailing hyphen is not part of the domain.
            while end > index + 1, bytes[end - 1] == UInt8(ascii: ".") || bytes[end - 1] == UInt8(ascii: "-") { end -= 1 }
            let domain = bytes[(index + 1)..<end]
            guard let first = domain.first, isLetterOrDigit(first), let lastDot = domain.lastIndex(of: UInt8(ascii: ".")),
                end - lastDot - 1 >= 2, bytes[(lastDot + 1)..<end].allSatisfy(isLetter)
            else { continue }
            spans.append(start..<end)
            searchFrom = end
            index = end - 1
        }
        return spans
    }

    /// Runs of 13–19 digits, single spaces or hyphens allowed between digits, that pass the
    /// Luhn check and are not part of a longer run of digits or of a word.
    static func cardSpans(in bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]), index == 0 || !isLetterOrDigit(bytes[index - 1]) else {
                index += 1
                continue
            }
            var digits: [UInt8] = []
            var end = index
            var cursor = index
            while cursor < bytes.count {
                if isDigit(bytes[cursor]) {
                    digits.append(bytes[cursor] - UInt8(ascii: "0"))
                    cursor += 1
                    end = cursor
                } else if bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "-"),
                    cursor + 1 < bytes.count, isDigit(bytes[cursor + 1])
                {
                    cursor += 1
                } else {
                    break
                }
                if digits.count > 19 { break }
            }
            let bounded = end == bytes.count || !isLetterOrDigit(bytes[end])
            if bounded, (13...19).contains(digits.count), passesLuhn(digits) { spans.append(index..<end) }
            index = max(end, index + 1)
        }
        return spans
    }

    private static let bearerWord = Array("bearer".utf8)
    /// Query parameter names whose values are credentials, lowercased.
    static let secretParameters: Set<[UInt8]> = Set(
        ["token", "access_token", "id_token", "refresh_token", "auth", "api_key", "apikey", "key", "secret", "client_secret",
         "password", "passwd", "pwd", "sig", "signature", "session", "sessionid"].map { Array($0.utf8) })

    /// The token after `Bearer ` (one or more spaces; 8 or more token characters), and the value
    /// of every `?name=` / `&name=` / `;name=` whose name is in ``secretParameters``.
    static func credentialSpans(in bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            let byte = bytes[index]
            if (byte | 0x20) == UInt8(ascii: "b"), index + 6 < bytes.count, index == 0 || !isLetterOrDigit(bytes[index - 1]),
                bytes[index..<(index + 6)].map({ $0 | 0x20 }).elementsEqual(bearerWord)
            {
                var start = index + 6
                guard start < bytes.count, bytes[start] == UInt8(ascii: " ") else { continue }
                while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
                var end = start
                while end < bytes.count, isTokenPart(bytes[end]) { end += 1 }
                if end - start >= 8 {
                    spans.append(start..<end)
                    index = end - 1
                }
            } else if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") {
                var nameEnd = index + 1
                while nameEnd < bytes.count, nameEnd - index <= 32, bytes[nameEnd] != UInt8(ascii: "=") { nameEnd += 1 }
                guard nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: "="),
                    secretParameters.contains(bytes[(index + 1)..<nameEnd].map { isLetter($0) ? $0 | 0x20 : $0 })
                else { continue }
                var end = nameEnd + 1
                while end < bytes.count, !isValueEnd(bytes[end]) { end += 1 }
                if end > nameEnd + 1 {
                    spans.append((nameEnd + 1)..<end)
                    index = end - 1
                }
            }
        }
        return spans
    }

    private static func isTokenPart(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
    }

    private static func isValueEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
    }

    /// The Luhn checksum over `digits` (values 0–9, most significant first).
    static func passesLuhn(_ digits: [UInt8]) -> Bool {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            var value = Int(digit)
            if offset % 2 == 1 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return sum % 10 == 0
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
    private static func isLetterOrDigit(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }
    private static func isLocalPart(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "%")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
    private static func isDomainPart(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
}
