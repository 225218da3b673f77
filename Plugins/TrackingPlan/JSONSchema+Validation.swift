import Foundation
import MetaRouterCore

extension JSONSchema {
    /// Every way `value` breaks this schema, with key paths starting at `path`. The walk follows
    /// the schema, whose nesting compiling bounded, so no value can make it deeper.
    package func violations(of value: JSON, at path: String) -> [PlanViolation] {
        var found: [PlanViolation] = []
        var trail = Trail(root: path)
        check(value, at: &trail, into: &found)
        if found.count > 1 { found.sort { $0.path < $1.path } }
        return found
    }

    /// Whether `value` satisfies this schema.
    package func accepts(_ value: JSON) -> Bool { violations(of: value, at: "").isEmpty }

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

    fileprivate func check(_ value: JSON, at trail: inout Trail, into found: inout [PlanViolation]) {
        switch self {
        case .boolean(true):
            return
        case .boolean(false):
            found.append(PlanViolation(path: trail.path, rule: "false", message: "no value is allowed here"))
        case .rules(let rules):
            rules.check(value, at: &trail, into: &found)
        }
    }
}

extension JSONSchema.Rules {
    fileprivate func check(_ value: JSON, at trail: inout Trail, into found: inout [PlanViolation]) {
        if let types, types.isDisjoint(with: Self.types(of: value)) {
            let expected = JSONSchema.Types.names.filter { types.contains($0.1) }.map(\.0).joined(separator: " or ")
            found.append(PlanViolation(path: trail.path, rule: "type", message: "expected \(expected), got \(Self.typeName(value))"))
        }
        if let enumeration, !enumeration.contains(where: { Self.equal($0, value) }) {
            found.append(PlanViolation(path: trail.path, rule: "enum", message: "not one of the allowed values"))
        }
        if let constant, !Self.equal(constant, value) {
            found.append(PlanViolation(path: trail.path, rule: "const", message: "not the required value"))
        }
        switch value {
        case .string(let text): checkString(text, at: &trail, into: &found)
        case .int, .uint, .double: checkNumber(value.doubleValue ?? 0, at: &trail, into: &found)
        case .array(let elements): checkArray(elements, at: &trail, into: &found)
        case .object(let members): checkObject(members, at: &trail, into: &found)
        case .null, .bool: break
        }
    }

    private func checkString(_ text: String, at trail: inout Trail, into found: inout [PlanViolation]) {
        let length = text.unicodeScalars.count
        if let minLength, length < minLength {
            found.append(PlanViolation(path: trail.path, rule: "minLength", message: "\(length) characters, fewer than \(minLength)"))
        }
        if let maxLength, length > maxLength {
            found.append(PlanViolation(path: trail.path, rule: "maxLength", message: "\(length) characters, more than \(maxLength)"))
        }
        if let pattern, !pattern.matches(text) {
            found.append(PlanViolation(path: trail.path, rule: "pattern", message: "does not match \(pattern.source)"))
        }
    }

    private func checkNumber(_ number: Double, at trail: inout Trail, into found: inout [PlanViolation]) {
        if let minimum, number < minimum { found.append(PlanViolation(path: trail.path, rule: "minimum", message: "below \(minimum)")) }
        if let maximum, number > maximum { found.append(PlanViolation(path: trail.path, rule: "maximum", message: "above \(maximum)")) }
        if let exclusiveMinimum, number <= exclusiveMinimum {
            found.append(PlanViolation(path: trail.path, rule: "exclusiveMinimum", message: "not above \(exclusiveMinimum)"))
        }
        if let exclusiveMaximum, number >= exclusiveMaximum {
            found.append(PlanViolation(path: trail.path, rule: "exclusiveMaximum", message: "not below \(exclusiveMaximum)"))
        }
    }

    private func checkArray(_ elements: [JSON], at trail: inout Trail, into found: inout [PlanViolation]) {
        if let minItems, elements.count < minItems {
            found.append(PlanViolation(path: trail.path, rule: "minItems", message: "\(elements.count) items, fewer than \(minItems)"))
        }
        if let maxItems, elements.count > maxItems {
            found.append(PlanViolation(path: trail.path, rule: "maxItems", message: "\(elements.count) items, more than \(maxItems)"))
        }
        for (index, element) in elements.enumerated() {
            let schema = tupleItems.map { index < $0.count ? $0[index] : nil } ?? items
            guard let schema else { continue }
            trail.parts.append(.index(index))
            schema.check(element, at: &trail, into: &found)
            trail.parts.removeLast()
        }
    }

    private func checkObject(_ members: [String: JSON], at trail: inout Trail, into found: inout [PlanViolation]) {
        for name in required where members[name] == nil {
            found.append(PlanViolation(path: trail.path(appending: name), rule: "required", message: "missing"))
        }
        for (name, member) in members {
            if let schema = properties[name] {
                trail.parts.append(.key(name))
                schema.check(member, at: &trail, into: &found)
                trail.parts.removeLast()
            } else if case .boolean(false)? = additionalProperties {
                found.append(PlanViolation(path: trail.path(appending: name), rule: "additionalProperties", message: "not in the plan"))
            } else if let additionalProperties {
                trail.parts.append(.key(name))
                additionalProperties.check(member, at: &trail, into: &found)
                trail.parts.removeLast()
            }
        }
    }

    /// The JSON Schema types `value` has: an integer is any number without a fractional part
    /// (`1.0` is one), and every integer is a number.
    private static func types(of value: JSON) -> JSONSchema.Types {
        switch value {
        case .null: return .null
        case .bool: return .boolean
        case .string: return .string
        case .array: return .array
        case .object: return .object
        case .int, .uint: return [.integer, .number]
        case .double(let number): return number.isFinite && number == number.rounded() ? [.integer, .number] : .number
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
        case (.string(let a), .string(let b)):
            // JSON Schema compares strings by code points: "é" is not "e\u{301}".
            return a.hasSameScalars(as: b)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        default:
            return left == right
        }
    }
}

/// Where the walk is, kept as parts and written out only for a violation, so a valid event
/// builds no key path strings.
struct Trail {
    enum Part {
        case key(String)
        case index(Int)
    }

    let root: String
    var parts: [Part] = []

    init(root: String) { self.root = root }

    /// The key path, e.g. `properties.items[1].price`.
    var path: String {
        var text = root
        for part in parts {
            switch part {
            case .key(let name): text += text.isEmpty ? name : ".\(name)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// The key path of member `name` of where the walk is.
    func path(appending name: String) -> String {
        let base = path
        return base.isEmpty ? name : "\(base).\(name)"
    }
}
