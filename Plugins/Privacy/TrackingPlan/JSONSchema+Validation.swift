import Foundation
import MetaRouterCore

extension JSONSchema {
    /// Every way `value` breaks this schema, with key paths starting at `path`. The walk follows
    /// the schema, whose nesting compiling bounded, so no value can make it deeper.
    public func violations(of value: JSON, at path: String) -> [PlanViolation] {
        var found: [PlanViolation] = []
        check(value, at: path, into: &found)
        return found
    }

    /// Whether `value` satisfies this schema.
    public func accepts(_ value: JSON) -> Bool { violations(of: value, at: "").isEmpty }

    /// The schema a member `name` of an object is checked against, or `nil` when this schema
    /// says nothing about it (or forbids it: see ``forbidsMember(_:)``).
    func memberSchema(_ name: String) -> JSONSchema? {
        guard case .rules(let rules) = self else { return nil }
        return rules.properties[name] ?? rules.additionalProperties
    }

    /// Whether this schema forbids a member `name` (`additionalProperties: false` and not listed).
    func forbidsMember(_ name: String) -> Bool {
        guard case .rules(let rules) = self, rules.properties[name] == nil, case .boolean(false)? = rules.additionalProperties else {
            return false
        }
        return true
    }

    private func check(_ value: JSON, at path: String, into found: inout [PlanViolation]) {
        switch self {
        case .boolean(true):
            return
        case .boolean(false):
            found.append(PlanViolation(path: path, rule: "false", message: "no value is allowed here"))
        case .rules(let rules):
            rules.check(value, at: path, into: &found)
        }
    }
}

extension JSONSchema.Rules {
    fileprivate func check(_ value: JSON, at path: String, into found: inout [PlanViolation]) {
        if let types, !types.contains(where: { Self.matches(value, type: $0) }) {
            found.append(PlanViolation(path: path, rule: "type", message: "expected \(types.sorted().joined(separator: " or ")), got \(Self.typeName(value))"))
        }
        if let enumeration, !enumeration.contains(where: { Self.equal($0, value) }) {
            found.append(PlanViolation(path: path, rule: "enum", message: "not one of the allowed values"))
        }
        if let constant, !Self.equal(constant, value) {
            found.append(PlanViolation(path: path, rule: "const", message: "not the required value"))
        }
        switch value {
        case .string(let text): checkString(text, at: path, into: &found)
        case .int, .uint, .double: checkNumber(value.doubleValue ?? 0, at: path, into: &found)
        case .array(let elements): checkArray(elements, at: path, into: &found)
        case .object(let members): checkObject(members, at: path, into: &found)
        case .null, .bool: break
        }
    }

    private func checkString(_ text: String, at path: String, into found: inout [PlanViolation]) {
        let length = text.unicodeScalars.count
        if let minLength, length < minLength {
            found.append(PlanViolation(path: path, rule: "minLength", message: "\(length) characters, fewer than \(minLength)"))
        }
        if let maxLength, length > maxLength {
            found.append(PlanViolation(path: path, rule: "maxLength", message: "\(length) characters, more than \(maxLength)"))
        }
        if let pattern, pattern.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) == nil {
            found.append(PlanViolation(path: path, rule: "pattern", message: "does not match \(pattern.pattern)"))
        }
    }

    private func checkNumber(_ number: Double, at path: String, into found: inout [PlanViolation]) {
        if let minimum, number < minimum { found.append(PlanViolation(path: path, rule: "minimum", message: "below \(minimum)")) }
        if let maximum, number > maximum { found.append(PlanViolation(path: path, rule: "maximum", message: "above \(maximum)")) }
        if let exclusiveMinimum, number <= exclusiveMinimum {
            found.append(PlanViolation(path: path, rule: "exclusiveMinimum", message: "not above \(exclusiveMinimum)"))
        }
        if let exclusiveMaximum, number >= exclusiveMaximum {
            found.append(PlanViolation(path: path, rule: "exclusiveMaximum", message: "not below \(exclusiveMaximum)"))
        }
    }

    private func checkArray(_ elements: [JSON], at path: String, into found: inout [PlanViolation]) {
        if let minItems, elements.count < minItems {
            found.append(PlanViolation(path: path, rule: "minItems", message: "\(elements.count) items, fewer than \(minItems)"))
        }
        if let maxItems, elements.count > maxItems {
            found.append(PlanViolation(path: path, rule: "maxItems", message: "\(elements.count) items, more than \(maxItems)"))
        }
        for (index, element) in elements.enumerated() {
            let schema = tupleItems.map { index < $0.count ? $0[index] : nil } ?? items
            if let schema { found += schema.violations(of: element, at: "\(path)[\(index)]") }
        }
    }

    private func checkObject(_ members: [String: JSON], at path: String, into found: inout [PlanViolation]) {
        for name in required where members[name] == nil {
            found.append(PlanViolation(path: path.isEmpty ? name : "\(path).\(name)", rule: "required", message: "missing"))
        }
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            let memberPath = path.isEmpty ? name : "\(path).\(name)"
            if let schema = properties[name] {
                found += schema.violations(of: member, at: memberPath)
            } else if case .boolean(false)? = additionalProperties {
                found.append(PlanViolation(path: memberPath, rule: "additionalProperties", message: "not in the plan"))
            } else if let additionalProperties {
                found += additionalProperties.violations(of: member, at: memberPath)
            }
        }
    }

    /// JSON Schema's types: an integer is any number without a fractional part (`1.0` is one).
    private static func matches(_ value: JSON, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): return true
        case ("number", .int), ("number", .uint), ("number", .double), ("integer", .int), ("integer", .uint): return true
        case ("integer", .double(let number)): return number.isFinite && number == number.rounded()
        default: return false
        }
    }

    private static func typeName(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .uint: return "integer"
        case .double(let number): return number == number.rounded() ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// JSON Schema's equality: numbers by value (`1` equals `1.0`), containers member by member.
    static func equal(_ left: JSON, _ right: JSON) -> Bool {
        switch (left, right) {
        case (.int, _), (.uint, _), (.double, _):
            guard let a = left.doubleValue, let b = right.doubleValue else { return false }
            if case .int(let x) = left, case .int(let y) = right { return x == y }
            return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        default:
            return left == right
        }
    }
}
