/// Where a parse went wrong: 1-based line and column, and what was expected.
package struct RuleParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line.
    package let line: Int
    /// 1-based column.
    package let column: Int
    /// What was expected and what was found.
    package let message: String

    /// `line 3, column 14: expected ")", found "and"`.
    package var description: String { "line \(line), column \(column): \(message)" }
}

/// A token of the rule language, with its position.
struct Token: Hashable {
    enum Kind: Hashable {
        case word(String, plain: Bool)  // a path or keyword; `plain` when it has no dots or escapes
        case string(String)
        case number(JSON)
        case symbol(String)
        case end
    }

    let kind: Kind
    let line: Int
    let column: Int

    var text: String {
        switch kind {
        case .word(let word, _): return word
        case .string(let text): return "\"\(text)\""
        case .number(let number): return number.description
        case .symbol(let symbol): return symbol
        case .end: return "end of input"
        }
    }

    func isWord(_ word: String) -> Bool {
        if case .word(let text, true) = kind { return text == word }
        return false
    }

    func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let text) = kind { return text == symbol }
        return false
    }
}

import MetaRouterCore

/// Splits rule text into tokens. `#` starts a comment to the end of the line.
enum Lexer {
    private static let symbols = ["->", "!=", "<=", ">=", "??", "=", "<", ">", "!", "(", ")", "[", "]", "{", "}", ",", ":", "%"]

    static func tokens(_ text: String) throws(RuleParseError) -> [Token] {
        let characters = Array(text)
        var tokens: [Token] = []
        var index = 0
        var line = 1
        var lineStart = 0
        func error(_ message: String) -> RuleParseError {
            RuleParseError(line: line, column: index - lineStart + 1, message: message)
        }
        while index < characters.count {
            let character = characters[index]
            let column = index - lineStart + 1
            if character == "\n" {
                index += 1
                line += 1
                lineStart = index
                continue
            }
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "#" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "\"" || character == "'" {
                var value = ""
                index += 1
                while true {
                    guard index < characters.count, characters[index] != "\n" else { throw error("unterminated string") }
                    let next = characters[index]
                    if next == character { break }
                    if next == "\\", index + 1 < characters.count {
                        index += 1
                        switch characters[index] {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        default: value.append(characters[index])
                        }
                    } else {
                        value.append(next)
                    }
                    index += 1
                }
                index += 1
                tokens.append(Token(kind: .string(value), line: line, column: column))
                continue
            }
            if character.isNumber || (character == "-" && index + 1 < characters.count && characters[index + 1].isNumber) {
                var text = String(character)
                index += 1
                while index < characters.count, characters[index].isNumber || characters[index] == "." || characters[index] == "e"
                    || characters[index] == "E" || ((characters[index] == "+" || characters[index] == "-") && (text.last == "e" || text.last == "E"))
                {
                    text.append(characters[index])
                    index += 1
                }
                guard let number = Self.number(text) else { throw error("malformed number \"\(text)\"") }
                tokens.append(Token(kind: .number(number), line: line, column: column))
                continue
            }
            if character == "-", index + 1 < characters.count, characters[index + 1] == ">" {
                tokens.append(Token(kind: .symbol("->"), line: line, column: column))
                index += 2
                continue
            }
            if isWordCharacter(character) || character == "\\" {
                var word = ""
                var plain = true
                while index < characters.count {
                    let next = characters[index]
                    if next == "\\", index + 1 < characters.count {
                        word.append("\\")
                        word.append(characters[index + 1])
                        plain = false
                        index += 2
                    } else if isWordCharacter(next) {
                        word.append(next)
                        index += 1
                    } else if next == ".", index + 1 < characters.count, isWordCharacter(characters[index + 1]) || characters[index + 1] == "\\" {
                        word.append(".")
                        plain = false
                        index += 1
                    } else {
                        break
                    }
                }
                guard !word.isEmpty else { throw error("a \\ must be followed by the character it escapes") }
                tokens.append(Token(kind: .word(word, plain: plain), line: line, column: column))
                continue
            }
            if let symbol = symbols.first(where: { matches($0, characters, at: index) }) {
                tokens.append(Token(kind: .symbol(symbol), line: line, column: column))
                index += symbol.count
                continue
            }
            throw error("unexpected character \"\(character)\"")
        }
        tokens.append(Token(kind: .end, line: line, column: index - lineStart + 1))
        return tokens
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "-" || character == "$"
    }

    private static func matches(_ symbol: String, _ characters: [Character], at index: Int) -> Bool {
        let parts = Array(symbol)
        guard index + parts.count <= characters.count else { return false }
        return characters[index..<(index + parts.count)].elementsEqual(parts)
    }

    private static func number(_ text: String) -> JSON? {
        if let integer = Int64(text) { return .int(integer) }
        if let double = Double(text), double.isFinite { return .double(double) }
        return nil
    }
}
