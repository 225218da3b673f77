import MetaRouterCore

/// Parses the rule text syntax:
///
/// ```
/// # comments start with '#'
/// ruleset "mobile" version 3 fail closed      # optional header
///
/// rule "fix misnamed property" {
///     when event = "Order Completed"          # optional: every event without it
///     only track, screen                      # optional: event types
///     move properties.productID to properties.product_id
///     set context.user_key = userId ?? anonymousId
///     drop
/// }
/// ```
///
/// Actions: `drop`; `sample 25% [by PATH]`; `set PATH = EXPRESSION`; `copy PATH to PATH`;
/// `move PATH to PATH`; `delete PATH`; `allow PATH: [keys]`; `remove PATH: [keys]`;
/// `to_string PATH`. `$` as PATH means the top level of the event.
package enum RuleTextParser {
    /// Parses `text`, or throws the first error with its line and column.
    package static func parse(_ text: String) throws(RuleParseError) -> RuleSet {
        var cursor = ExpressionParser(tokens: try Lexer.tokens(text))
        var name = "rules"
        var version = 1
        var policy = FailurePolicy.open
        if cursor.current.isWord("ruleset") {
            cursor.advance()
            name = try string(&cursor, "a rule set name")
            while true {
                if cursor.current.isWord("version") {
                    cursor.advance()
                    guard case .number(.int(let number)) = cursor.current.kind else { throw cursor.error("expected a version number, found \(cursor.current.text)") }
                    version = Int(number)
                    cursor.advance()
                } else if cursor.current.isWord("fail") {
                    cursor.advance()
                    guard case .word(let word, true) = cursor.current.kind, let parsed = FailurePolicy(rawValue: word) else {
                        throw cursor.error("expected \"open\" or \"closed\", found \(cursor.current.text)")
                    }
                    policy = parsed
                    cursor.advance()
                } else {
                    break
                }
            }
        }
        var rules: [Rule] = []
        while !isEnd(cursor) {
            guard cursor.current.isWord("rule") else { throw cursor.error("expected \"rule\", found \(cursor.current.text)") }
            cursor.advance()
            rules.append(try rule(&cursor, index: rules.count))
        }
        return RuleSet(name: name, version: version, failurePolicy: policy, rules: rules)
    }

    static func isEnd(_ cursor: ExpressionParser) -> Bool {
        if case .end = cursor.current.kind { return true }
        return false
    }

    private static func rule(_ cursor: inout ExpressionParser, index: Int) throws(RuleParseError) -> Rule {
        var rule = Rule(name: "rule \(index + 1)", actions: [])
        if case .string(let text) = cursor.current.kind {
            rule.name = text
            cursor.advance()
        }
        try expect(&cursor, "{")
        while !cursor.current.isSymbol("}") {
            guard case .word(let keyword, true) = cursor.current.kind else {
                throw cursor.error("expected an action, \"when\", \"only\" or \"}\", found \(cursor.current.text)")
            }
            let start = cursor.current
            cursor.advance()
            switch keyword {
            case "when":
                guard rule.condition == nil else { throw RuleParseError(line: start.line, column: start.column, message: "a rule has one \"when\"") }
                rule.condition = try cursor.expression()
            case "only":
                var types: Set<EventType> = []
                repeat {
                    if cursor.current.isSymbol(",") { cursor.advance() }
                    guard case .word(let word, true) = cursor.current.kind, let type = EventType(rawValue: word) else {
                        throw cursor.error("expected an event type (track, identify, screen, page, group, alias), found \(cursor.current.text)")
                    }
                    types.insert(type)
                    cursor.advance()
                } while cursor.current.isSymbol(",")
                rule.types = types
            default:
                rule.actions.append(try action(keyword, start, &cursor))
            }
        }
        cursor.advance()
        return rule
    }

    private static func action(_ keyword: String, _ start: Token, _ cursor: inout ExpressionParser) throws(RuleParseError) -> RuleAction {
        switch keyword {
        case "drop":
            return .drop
        case "sample":
            guard case .number(let number) = cursor.current.kind, let percent = number.doubleValue, (0...100).contains(percent) else {
                throw cursor.error("expected a percentage from 0 to 100, found \(cursor.current.text)")
            }
            cursor.advance()
            try expect(&cursor, "%")
            if cursor.current.isWord("by") {
                cursor.advance()
                return .sample(percent: percent, by: try path(&cursor))
            }
            return .sample(percent: percent, by: nil)
        case "set":
            let target = try path(&cursor)
            try expect(&cursor, "=")
            return .set(target, try cursor.expression())
        case "copy", "move":
            let source = try path(&cursor)
            guard cursor.current.isWord("to") || cursor.current.isSymbol("->") else { throw cursor.error("expected \"to\", found \(cursor.current.text)") }
            cursor.advance()
            let target = try path(&cursor)
            return keyword == "copy" ? .copy(from: source, to: target) : .move(from: source, to: target)
        case "delete":
            return .delete(try path(&cursor))
        case "to_string":
            return .toString(try path(&cursor))
        case "allow", "remove":
            let target = try path(&cursor)
            try expect(&cursor, ":")
            try expect(&cursor, "[")
            var keys: [String] = []
            while !cursor.current.isSymbol("]") {
                switch cursor.current.kind {
                case .word(let word, _): keys.append(FieldPath.split(word).joined(separator: "."))
                case .string(let text): keys.append(text)
                default: throw cursor.error("expected a key, found \(cursor.current.text)")
                }
                cursor.advance()
                if cursor.current.isSymbol(",") { cursor.advance() }
            }
            cursor.advance()
            return keyword == "allow" ? .allow(target, keys: keys) : .remove(target, keys: keys)
        default:
            throw RuleParseError(
                line: start.line, column: start.column,
                message: "expected an action (drop, sample, set, copy, move, delete, allow, remove, to_string), found \"\(keyword)\"")
        }
    }

    static func path(_ cursor: inout ExpressionParser) throws(RuleParseError) -> [String] {
        guard case .word(let word, _) = cursor.current.kind else { throw cursor.error("expected a field path, found \(cursor.current.text)") }
        cursor.advance()
        return word == "$" ? [] : FieldPath.split(word)
    }

    static func string(_ cursor: inout ExpressionParser, _ what: String) throws(RuleParseError) -> String {
        guard case .string(let text) = cursor.current.kind else { throw cursor.error("expected \(what) in quotes, found \(cursor.current.text)") }
        cursor.advance()
        return text
    }

    static func expect(_ cursor: inout ExpressionParser, _ symbol: String) throws(RuleParseError) {
        guard cursor.current.isSymbol(symbol) else { throw cursor.error("expected \"\(symbol)\", found \(cursor.current.text)") }
        cursor.advance()
    }
}
