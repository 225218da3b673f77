/// A name's words: runs of letters and digits, split where a lowercase letter or digit is
/// followed by an uppercase one (`orderID2go` → `order`, `ID2go`). The rule language's case
/// functions and the typed-event generator's Swift names split names the same way.
package enum Words {
    /// The words of `text`, in their own case; with `asciiOnly`, a non-ASCII letter or digit
    /// separates words as punctuation does.
    package static func split(_ text: String, asciiOnly: Bool = false) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in text {
            guard character.isLetter || character.isNumber, !asciiOnly || character.isASCII else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase, previousWasLower, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character)
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
