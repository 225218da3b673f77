import Foundation
import MetaRouterCore

/// Resolves `$ref` within a plan before its schemas are compiled or typed, so the device and
/// the typed-event generator see the same schema: a reference `#/…` (a JSON Pointer into the
/// entry's document: the plan file for this SDK's format, the rule's `jsonSchema` or the
/// event's `rules` for Segment's) is replaced by what it points at (draft-07 ignores a `$ref`'s
/// sibling keywords). A reference outside the plan, one that points nowhere, a recursive one,
/// or an expansion larger than ``maximumNodes`` is refused, with the same message for both.
enum SchemaReferences {
    /// Schema objects the entries of a plan may expand to, all together: a few references to
    /// references must not blow a plan up exponentially (a 2.6 KB plan expanded to 69 MB of
    /// generated Swift when each entry had a budget of its own).
    static let maximumNodes = 200_000

    /// `schema` with every `$ref` replaced, or `schema` itself when it has none; the schemas
    /// expanded are taken from `budget`, the plan's (``maximumNodes`` to start with).
    static func resolve(_ schema: JSON, root: JSON, place: String, budget: inout Int) throws(TrackingPlan.LoadError) -> JSON {
        guard mentionsReference(schema, depth: 0) else { return schema }
        var stack: [String] = []
        return try expand(schema, root: root, place: place, stack: &stack, budget: &budget, depth: 0)
    }

    private static func mentionsReference(_ value: JSON, depth: Int) -> Bool {
        guard depth <= JSONSchema.maximumDepth else { return false }
        switch value {
        case .object(let members): return members["$ref"] != nil || members.values.contains { mentionsReference($0, depth: depth + 1) }
        case .array(let items): return items.contains { mentionsReference($0, depth: depth + 1) }
        default: return false
        }
    }

    private static func expand(
        _ value: JSON, root: JSON, place: String, stack: inout [String], budget: inout Int, depth: Int, isSchema: Bool = true
    ) throws(TrackingPlan.LoadError) -> JSON {
        guard depth <= JSONSchema.maximumDepth else {
            throw TrackingPlan.LoadError(description: "\(place): nested deeper than \(JSONSchema.maximumDepth) levels (counting what `$ref` brings in)")
        }
        budget -= 1
        guard budget >= 0 else {
            throw TrackingPlan.LoadError(description: "\(place): the plan's `$ref`s expand to more than \(maximumNodes) schemas in all; refer to fewer")
        }
        switch value {
        case .object(let members) where !isSchema:
            // A map of names to schemas (`properties`): a member named `$ref` is a property.
            var expanded: [String: JSON] = [:]
            for (key, member) in members {
                expanded[key] = try expand(member, root: root, place: place, stack: &stack, budget: &budget, depth: depth + 1)
            }
            return .object(expanded)
        case .object(let members):
            if let reference = members["$ref"] {
                guard let text = reference.stringValue else { throw TrackingPlan.LoadError(description: "\(place): `$ref` is not a string") }
                guard !stack.contains(text) else {
                    throw TrackingPlan.LoadError(description: "\(place): `$ref` \"\(text)\" refers to itself; a recursive schema is not supported")
                }
                let target = try pointee(text, in: root, place: place)
                stack.append(text)
                defer { stack.removeLast() }
                return try expand(target, root: root, place: place, stack: &stack, budget: &budget, depth: depth)
            }
            var expanded: [String: JSON] = [:]
            for (key, member) in members {
                // `enum` / `const` values and `definitions` are data, not schemas to expand.
                let isData = key == "enum" || key == "const" || key == "definitions" || key == "$defs" || key == "examples" || key == "default"
                let isMap = key == "properties" || key == "patternProperties" || key == "dependencies"
                expanded[key] = isData
                    ? member : try expand(member, root: root, place: place, stack: &stack, budget: &budget, depth: depth + 1, isSchema: !isMap)
            }
            return .object(expanded)
        case .array(let items):
            var expanded: [JSON] = []
            for item in items { expanded.append(try expand(item, root: root, place: place, stack: &stack, budget: &budget, depth: depth + 1)) }
            return .array(expanded)
        default:
            return value
        }
    }

    /// What the JSON Pointer `#/a/b~1c` points at in `root`.
    private static func pointee(_ reference: String, in root: JSON, place: String) throws(TrackingPlan.LoadError) -> JSON {
        guard reference == "#" || reference.hasPrefix("#/") else {
            throw TrackingPlan.LoadError(description: "\(place): `$ref` \"\(reference)\" is outside the plan; only references within it (\"#/…\") are resolved")
        }
        var current = root
        for raw in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) where reference != "#" {
            let token = (String(raw).removingPercentEncodingIfPossible).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let members = current.objectValue, let next = members[token] {
                current = next
            } else if let items = current.arrayValue, let index = Int(token), items.indices.contains(index) {
                current = items[index]
            } else {
                throw TrackingPlan.LoadError(description: "\(place): `$ref` \"\(reference)\" points at nothing in the plan")
            }
        }
        return current
    }
}

extension String {
    /// The text with `%xx` escapes decoded, or itself when it has none or they are not UTF-8.
    fileprivate var removingPercentEncodingIfPossible: String {
        guard contains("%") else { return self }
        return removingPercentEncoding ?? self
    }
}
