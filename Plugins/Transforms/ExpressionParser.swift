import MetaRouterCore

/// Parses FQL expressions (and our additions, `??` and `concat`) from tokens.
///
/// Precedence, loosest first: `or`, `and`, comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`,
/// `in`), prefix `!`, `??`, then literals, lists, paths, calls and parentheses — so
/// `!a = b` is `(!a) = b`; write `!(a = b)` to negate a comparison. `and` / `or` chains are
/// flattened (`a and b and c` is one n-ary `and`).
///
/// Nesting — parentheses, lists, calls, `!` and `??` chains — is limited to
/// ``maximumNesting`` levels, so hostile rule text (rules may come from a server) gets a
/// line/column error instead of exhausting the stack of the thread that parses or runs it.
struct ExpressionParser {
    /// The deepest an expression may nest.
    static let maximumNesting = 64

    private let tokens: [Token]
    private(set) var position: Int
    private var nesting = 0

    init(tokens: [Token], position: Int = 0) {
        self.tokens = tokens
        self.position = position
    }

    /// Parses a whole text as one expression.
    static func parse(_ text: String) throws(RuleParseError) -> Expression {
        var parser = ExpressionParser(tokens: try Lexer.tokens(text))
        let expression = try parser.expression()
        guard case .end = parser.current.kind else { throw parser.error("expected an operator or the end, found \(parser.current.text)") }
        return expression
    }

    var current: Token { tokens[min(position, tokens.count - 1)] }

    func error(_ message: String) -> RuleParseError {
        RuleParseError(line: current.line, column: current.column, message: message)
    }

    mutating func advance() { position += 1 }

    /// Counts `levels` more levels of nesting at the current token; throws past the limit.
    private mutating func enter(_ levels: Int = 1) throws(RuleParseError) {
        nesting += levels
        guard nesting <= Self.maximumNesting else {
            throw error("expression nested deeper than \(Self.maximumNesting) levels")
        }
    }

    private mutating func leave(_ levels: Int = 1) { nesting -= levels }

    mutating func expression() throws(RuleParseError) -> Expression {
        var terms = [try conjunction()]
        while current.isWord("or") {
            advance()
            terms.append(try conjunction())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func conjunction() throws(RuleParseError) -> Expression {
        var terms = [try comparison()]
        while current.isWord("and") {
            advance()
            terms.append(try comparison())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func negation() throws(RuleParseError) -> Expression {
        var negations = 0
        while current.isSymbol("!") {
            try enter()
            negations += 1
            advance()
        }
        defer { leave(negations) }
        var value = try coalescing()
        for _ in 0..<negations { value = .not(value) }
        return value
    }

    private mutating func comparison() throws(RuleParseError) -> Expression {
        let left = try negation()
        let comparison: ComparisonOperator?
        switch current.kind {
        case .symbol(let symbol): comparison = ComparisonOperator(rawValue: symbol)
        case .word("in", true): comparison = .in
        default: comparison = nil
        }
        guard let comparison else { return left }
        advance()
        return .compare(comparison, left, try negation())
    }

    private mutating func coalescing() throws(RuleParseError) -> Expression {
        var value = try primary()
        var links = 0
        defer { leave(links) }
        while current.isSymbol("??") {
            try enter()
            links += 1
            advance()
            value = .coalesce(value, try primary())
        }
        return value
    }

    private mutating func primary() throws(RuleParseError) -> Expression {
        let token = current
        switch token.kind {
        case .string(let text):
            advance()
            return .literal(.string(text))
        case .number(let number):
            advance()
            return .literal(number)
        case .symbol("("):
            try enter()
            defer { leave() }
            advance()
            let inner = try expression()
            guard current.isSymbol(")") else { throw error("expected \")\", found \(current.text)") }
            advance()
            return inner
        case .symbol("["):
            try enter()
            defer { leave() }
            advance()
            var items: [Expression] = []
            if current.isSymbol("]") {
                advance()
                return .list(items)
            }
            while true {
                items.append(try coalescing())
                if current.isSymbol("]") { break }
                guard current.isSymbol(",") else { throw error("expected \",\" or \"]\", found \(current.text)") }
                advance()
            }
            advance()
            return .list(items)
        case .word(let word, let plain):
            advance()
            if plain {
                switch word {
                case "true": return .literal(true)
                case "false": return .literal(false)
                case "null": return .literal(.null)
                case "and", "or", "in": throw RuleParseError(line: token.line, column: token.column, message: "expected a value, found \"\(word)\"")
                default: break
                }
                if current.isSymbol("(") { return try call(word) }
            }
            return .path(FieldPath.split(word))
        default:
            throw error("expected a value, a path or \"(\", found \(token.text)")
        }
    }

    private mutating func call(_ name: String) throws(RuleParseError) -> Expression {
        let nameToken = tokens[position - 1]
        guard Functions.arity[name] != nil else {
            throw RuleParseError(line: nameToken.line, column: nameToken.column, message: "unknown function \"\(name)\"")
        }
        try enter()
        defer { leave() }
        advance()
        var arguments: [Expression] = []
        if !current.isSymbol(")") {
            while true {
                arguments.append(try expression())
                if current.isSymbol(")") { break }
                guard current.isSymbol(",") else { throw error("expected \",\" or \")\", found \(current.text)") }
                advance()
            }
        }
        advance()
        if let arity = Functions.arity[name], !arity.contains(arguments.count) {
            throw RuleParseError(
                line: nameToken.line, column: nameToken.column,
                message: "\(name) takes \(arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) or more") argument(s), found \(arguments.count)")
        }
        return .call(name, arguments)
    }
}
