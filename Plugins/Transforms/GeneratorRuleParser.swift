import MetaRouterCore

/// Parses generator rules (see ``GeneratorRule``):
///
/// ```
/// generator "NAME" {
///     on TYPE [when CONDITION]              # TYPE: a signal type, or `any`
///     find NAME: TYPE [where CONDITION]     # zero or more look-backs
///     track NAME-EXPRESSION                 # or: screen NAME-EXPRESSION
///     set properties.PATH = EXPRESSION      # zero or more
/// }
/// ```
package enum GeneratorRuleParser {
    /// Parses `text` into its generators, or throws the first error with its line and column.
    package static func parse(_ text: String) throws(RuleParseError) -> [GeneratorRule] {
        var cursor = ExpressionParser(tokens: try Lexer.tokens(text))
        var rules: [GeneratorRule] = []
        while !RuleTextParser.isEnd(cursor) {
            guard cursor.current.isWord("generator") else { throw cursor.error("expected \"generator\", found \(cursor.current.text)") }
            cursor.advance()
            rules.append(try generator(&cursor, index: rules.count))
        }
        return rules
    }

    private static func generator(_ cursor: inout ExpressionParser, index: Int) throws(RuleParseError) -> GeneratorRule {
        var name = "generator \(index + 1)"
        if case .string(let text) = cursor.current.kind {
            name = text
            cursor.advance()
        }
        let opening = cursor.current
        try RuleTextParser.expect(&cursor, "{")
        guard cursor.current.isWord("on") else { throw cursor.error("expected \"on\" and a signal type, found \(cursor.current.text)") }
        cursor.advance()
        let type = try word(&cursor, "a signal type or \"any\"")
        var condition: DocumentExpression?
        if cursor.current.isWord("when") {
            cursor.advance()
            condition = DocumentExpression(try cursor.expression())
        }
        var finds: [GeneratorRule.Find] = []
        var output: GeneratorRule.Output?
        var assignments: [GeneratorRule.Assignment] = []
        while !cursor.current.isSymbol("}") {
            let start = cursor.current
            switch start.kind {
            case .word("find", true):
                cursor.advance()
                let label = try word(&cursor, "a name for what is found")
                try RuleTextParser.expect(&cursor, ":")
                let findType = try word(&cursor, "a signal type")
                var predicate: DocumentExpression?
                if cursor.current.isWord("where") {
                    cursor.advance()
                    predicate = DocumentExpression(try cursor.expression())
                }
                finds.append(GeneratorRule.Find(name: label, type: findType, condition: predicate))
            case .word("track", true), .word("screen", true):
                guard output == nil else { throw cursor.error("a generator emits one event") }
                cursor.advance()
                let value = DocumentExpression(try cursor.expression())
                output = start.isWord("track") ? .track(value) : .screen(value)
            case .word("set", true):
                cursor.advance()
                let path = try RuleTextParser.path(&cursor)
                guard path.count >= 2, path[0] == "properties" else {
                    throw RuleParseError(line: start.line, column: start.column, message: "a generator sets fields of properties (set properties.NAME = …)")
                }
                try RuleTextParser.expect(&cursor, "=")
                assignments.append(GeneratorRule.Assignment(path: Array(path.dropFirst()), value: DocumentExpression(try cursor.expression())))
            case .end:
                throw RuleParseError(line: opening.line, column: opening.column, message: "this \"{\" is never closed")
            default:
                throw cursor.error("expected \"find\", \"track\", \"screen\", \"set\" or \"}\", found \(cursor.current.text)")
            }
        }
        cursor.advance()
        guard let output else {
            throw RuleParseError(line: opening.line, column: opening.column, message: "generator \"\(name)\" emits nothing: add \"track\" or \"screen\"")
        }
        return GeneratorRule(
            name: name, signalType: type == "any" ? nil : type, condition: condition, finds: finds, output: output, assignments: assignments)
    }

    private static func word(_ cursor: inout ExpressionParser, _ what: String) throws(RuleParseError) -> String {
        guard case .word(let word, true) = cursor.current.kind else { throw cursor.error("expected \(what), found \(cursor.current.text)") }
        cursor.advance()
        return word
    }
}
