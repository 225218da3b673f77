import MetaRouterCore

/// Loads Segment destination-filter settings (`middlewareSettings.routingRules`) as a rule set
/// that behaves as Segment documents it. Where Segment's JavaScript engine deviates from its
/// documentation, the documentation wins (see `Docs/TransformRules.md`).
package enum SegmentRoutingRules {
    /// Loads from a whole settings payload, or from a bare `routingRules` array.
    package static func load(_ settings: JSON) throws -> RuleSet {
        let rulesArray = settings["middlewareSettings"]?["routingRules"]?.arrayValue ?? settings["routingRules"]?.arrayValue
            ?? settings.arrayValue
        guard let routingRules = rulesArray else {
            throw RuleLoadError(location: "$", message: "expected middlewareSettings.routingRules")
        }
        var rules: [Rule] = []
        for (ruleIndex, entry) in routingRules.enumerated() {
            let location = "routingRules[\(ruleIndex)]"
            let matchers = entry["matchers"]?.arrayValue ?? []
            let transformers = entry["transformers"]?.arrayValue ?? []
            guard matchers.count == transformers.count else {
                throw RuleLoadError(location: location, message: "matchers and transformers differ in length")
            }
            for (index, matcher) in matchers.enumerated() {
                let steps = transformers[index].arrayValue ?? []
                rules.append(Rule(
                    name: "\(location).matchers[\(index)]", condition: try condition(matcher, location: "\(location).matchers[\(index)]"),
                    destination: entry["destinationName"]?.stringValue,
                    actions: try steps.enumerated().map { try action($1, location: "\(location).transformers[\(index)][\($0)]") }))
            }
        }
        return RuleSet(name: "segment-routing-rules", rules: rules)
    }

    private static func condition(_ matcher: JSON, location: String) throws -> Expression? {
        switch matcher["type"]?.stringValue {
        case "all":
            return nil
        case "fql":
            let text = matcher["ir"]?.stringValue ?? ""
            guard !text.isEmpty else { return .literal(false) }
            guard let ir = try? JSONParser.parse(text) else { throw RuleLoadError(location: "\(location).ir", message: "ir is not JSON") }
            return try SegmentIR.expression(ir, location: "\(location).ir")
        default:
            throw RuleLoadError(location: location, message: "unknown matcher type \(matcher["type"].map { $0.description } ?? "(none)")")
        }
    }

    private static func action(_ step: JSON, location: String) throws -> RuleAction {
        let config = step["config"]
        switch step["type"]?.stringValue {
        case "drop":
            return .drop
        case "hash_properties":
            return .map([])
        case "sample_event":
            // Segment's engine reads `config.sample.percent` unchecked: without it, it fails.
            guard let sample = config?["sample"]?.objectValue, let fraction = sample["percent"]?.doubleValue else {
                throw RuleLoadError(location: location, message: "expected config.sample with a percent")
            }
            let path = sample["path"]?.stringValue ?? ""
            return .sample(percent: max(0, min(100, fraction * 100)), by: path.isEmpty ? nil : FieldPath.split(path))
        case "drop_properties", "allow_properties":
            let allow = step["type"]?.stringValue == "allow_properties"
            guard let lists = config?[allow ? "allow" : "drop"]?.objectValue, lists.count == 1, let (path, keys) = lists.first else {
                throw RuleLoadError(location: location, message: "expected config.\(allow ? "allow" : "drop") with one path")
            }
            let names = keys.arrayValue?.compactMap(\.stringValue) ?? []
            let target = FieldPath.split(path)
            return allow ? .allow(target, keys: names) : .remove(target, keys: names)
        case "map_properties":
            guard let map = config?["map"]?.objectValue else { throw RuleLoadError(location: location, message: "expected config.map") }
            return .map(map.sortedByKey().map { target, spec in
                RuleAction.MapEntry(
                    target: FieldPath.split(target), set: spec["set"], copy: spec["copy"]?.stringValue.map(FieldPath.split),
                    move: spec["move"]?.stringValue.map(FieldPath.split), toString: spec["to_string"]?.boolValue ?? false)
            })
        default:
            throw RuleLoadError(location: location, message: "unknown transformer type \(step["type"].map { $0.description } ?? "(none)")")
        }
    }
}

/// Segment's IR: a bare string is a path, `{"value": X}` a literal (a list literal holds
/// `{"value": …}` items), `[op, arg, …]` an operation.
enum SegmentIR {
    static func expression(_ ir: JSON, location: String, depth: Int = 1) throws -> Expression {
        guard depth <= ExpressionParser.maximumNesting else {
            throw RuleLoadError(location: location, message: "expression nested deeper than \(ExpressionParser.maximumNesting) levels")
        }
        switch ir {
        case .string(let path):
            return .path(FieldPath.split(path))
        case .object(let object):
            guard let value = object["value"] else { throw RuleLoadError(location: location, message: "expected {\"value\": …}") }
            if case .array(let items) = value {
                return .list(try items.map { try expression($0, location: location, depth: depth + 1) })
            }
            return .literal(value)
        case .array(let items):
            guard let op = items.first?.stringValue else { throw RuleLoadError(location: location, message: "expected [operator, …]") }
            let arguments = try items.dropFirst().map { try expression($0, location: location, depth: depth + 1) }
            switch op {
            case "and": return .and(arguments)
            case "or": return .or(arguments)
            case "!":
                guard arguments.count == 1 else { throw RuleLoadError(location: location, message: "! takes one argument") }
                return .not(arguments[0])
            default:
                if let comparison = ComparisonOperator(rawValue: op) {
                    guard arguments.count == 2 else { throw RuleLoadError(location: location, message: "\(op) takes two arguments") }
                    return .compare(comparison, arguments[0], arguments[1])
                }
                guard let arity = Functions.arity[op], arity.contains(arguments.count) else {
                    throw RuleLoadError(location: location, message: "unknown operation \"\(op)\"")
                }
                return .call(op, arguments)
            }
        default:
            return .literal(ir)
        }
    }
}
