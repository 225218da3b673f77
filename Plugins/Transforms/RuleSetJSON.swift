import MetaRouterCore

/// Rules that could not be loaded, with where: what ``RuleSetLoader/load(_:format:)``,
/// `SignalGenerator.rules(_:)` and `Analytics.replaceRules(named:with:)` throw. It prints as
/// `location: message`, e.g. `line 3, column 14: expected ")", found "and"`.
public struct RuleLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where: `line 3, column 14` in rule text, `rules[2].actions[0]` in a JSON rule set,
    /// `byte 17` in text that is not JSON.
    public let location: String
    /// What was wrong.
    public let message: String

    public var description: String { "\(location): \(message)" }
}

extension RuleLoadError {
    /// The error as the loaders report it: a text error at its line and column, a JSON error at
    /// its byte.
    package init(_ error: any Error) {
        switch error {
        case let error as RuleLoadError: self = error
        case let error as RuleParseError: self.init(location: "line \(error.line), column \(error.column)", message: error.message)
        case let error as JSONParseError: self.init(location: "byte \(error.offset)", message: error.reason)
        default: self.init(location: "$", message: "\(error)")
        }
    }
}

/// The JSON form of a rule set, equivalent to the text syntax:
///
/// ```json
/// {"name": "mobile", "version": 3, "failure": "closed",
///  "rules": [{"name": "fix", "when": "event = \"Order Completed\"", "only": ["track"],
///             "actions": [{"move": {"from": "properties.productID", "to": "properties.product_id"}},
///                         {"set": {"path": "context.key", "expression": "userId ?? anonymousId"}},
///                         {"set": {"path": "properties.source", "value": "ios"}},
///                         {"sample": {"percent": 25, "by": "userId"}}, {"drop": true},
///                         {"delete": "context.device.advertisingId"}, {"to_string": "properties.price"},
///                         {"allow": {"path": "properties", "keys": ["sku"]}},
///                         {"remove": {"path": "properties", "keys": ["debug"]}}]}]}
/// ```
package enum RuleSetJSON {
    /// Loads a rule set from its JSON form.
    package static func load(_ document: JSON) throws -> RuleSet {
        guard let object = document.objectValue, let rules = object["rules"]?.arrayValue else {
            throw RuleLoadError(location: "$", message: "expected an object with a \"rules\" array")
        }
        let policy = try object["failure"].map { value -> FailurePolicy in
            guard let text = value.stringValue, let policy = FailurePolicy(rawValue: text) else {
                throw RuleLoadError(location: "failure", message: "expected \"open\" or \"closed\"")
            }
            return policy
        } ?? .open
        return RuleSet(
            name: object["name"]?.stringValue ?? "rules", version: Int(object["version"]?.int64Value ?? 1), failurePolicy: policy,
            rules: try rules.enumerated().map { try rule($1, location: "rules[\($0)]") })
    }

    private static func rule(_ value: JSON, location: String) throws -> Rule {
        guard let object = value.objectValue else { throw RuleLoadError(location: location, message: "expected an object") }
        var rule = Rule(name: object["name"]?.stringValue ?? location, actions: [])
        if let when = object["when"] {
            guard let text = when.stringValue else { throw RuleLoadError(location: "\(location).when", message: "expected an FQL string") }
            do {
                rule.condition = try ExpressionParser.parse(text)
            } catch {
                throw RuleLoadError(location: "\(location).when", message: error.description)
            }
        }
        if let only = object["only"] {
            let names = only.arrayValue?.compactMap(\.stringValue) ?? []
            let types = names.compactMap(EventType.init(rawValue:))
            guard types.count == names.count, !types.isEmpty else { throw RuleLoadError(location: "\(location).only", message: "expected event types") }
            rule.types = Set(types)
        }
        rule.destination = object["destination"]?.stringValue
        let actions = object["actions"]?.arrayValue ?? []
        rule.actions = try actions.enumerated().map { try action($1, location: "\(location).actions[\($0)]") }
        return rule
    }

    private static func action(_ value: JSON, location: String) throws -> RuleAction {
        guard let object = value.objectValue, object.count == 1, let (kind, body) = object.first else {
            throw RuleLoadError(location: location, message: "expected an object with one action")
        }
        func path(_ value: JSON?, _ field: String) throws -> [String] {
            guard let text = value?.stringValue else { throw RuleLoadError(location: "\(location).\(field)", message: "expected a path string") }
            return text == "$" ? [] : FieldPath.split(text)
        }
        switch kind {
        case "drop":
            return .drop
        case "sample":
            guard let percent = body["percent"]?.doubleValue, (0...100).contains(percent) else {
                throw RuleLoadError(location: location, message: "sample needs \"percent\" from 0 to 100")
            }
            return .sample(percent: percent, by: try body["by"].map { try path($0, "by") })
        case "set":
            let target = try path(body["path"], "path")
            if let text = body["expression"]?.stringValue {
                do {
                    return .set(target, try ExpressionParser.parse(text))
                } catch {
                    throw RuleLoadError(location: "\(location).expression", message: error.description)
                }
            }
            guard let literal = body["value"] else { throw RuleLoadError(location: location, message: "set needs \"value\" or \"expression\"") }
            return .set(target, .literal(literal))
        case "copy": return .copy(from: try path(body["from"], "from"), to: try path(body["to"], "to"))
        case "move": return .move(from: try path(body["from"], "from"), to: try path(body["to"], "to"))
        case "delete": return .delete(try path(body, "delete"))
        case "to_string": return .toString(try path(body, "to_string"))
        case "allow", "remove":
            let keys = body["keys"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let target = try path(body["path"], "path")
            return kind == "allow" ? .allow(target, keys: keys) : .remove(target, keys: keys)
        default:
            throw RuleLoadError(location: location, message: "unknown action \"\(kind)\"")
        }
    }
}
