import Foundation
import MetaRouterCore

/// Why an action could not be applied to an event.
package struct RuleRuntimeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    package let message: String
    /// The message.
    package var description: String { message }
}

/// Reads and writes event fields by path, without converting the whole event to JSON: the
/// first component picks the `Event` field, the rest walks its JSON.
enum EventAccess {
    /// Reads a value from an event, or from the call's ``ReadCache`` when the plan keeps it.
    typealias Reader = @Sendable (Event, ReadCache) -> JSON?

    private static let stringFields: Set<String> = [
        "type", "messageId", "timestamp", "anonymousId", "userId", "groupId", "previousId", "event", "name", "sentAt", "writeKey",
    ]

    /// A reader for `path`, specialised once at compile time; a key `plan` caches is read once
    /// per call.
    static func reader(_ path: [String], plan: ReadPlan = .none) -> Reader {
        guard let first = path.first else { return { event, _ in JSON.object(event.jsonObject()) } }
        if let key = ObjectKeyPath(path), let slot = plan.slot(for: key) {
            return { event, cache in cache.value(in: slot) { key.read(event) } }
        }
        if let field = EventObjectField(first) { return field.reader(path.dropFirst()) }
        guard let text = textReader(path) else { return { _, _ in nil } }
        return { event, _ in text(event).map { JSON.string($0) } }
    }

    /// A reader of the text field a one-component path names (`event`, `userId`, `type`, …), or
    /// `nil` when the path names none: conditions compare these without making JSON values.
    static func textReader(_ path: [String]) -> (@Sendable (Event) -> String?)? {
        guard path.count == 1 else { return nil }
        switch path[0] {
        case "type": return { $0.type.rawValue }
        case "event": return { $0.event }
        case "name": return { $0.name }
        case "userId": return { $0.userId }
        case "anonymousId": return { $0.anonymousId }
        case "groupId": return { $0.groupId }
        case "previousId": return { $0.previousId }
        case "messageId": return { $0.messageId }
        case "writeKey": return { $0.writeKey }
        case "timestamp": return { Timestamp.string(from: $0.timestamp) }
        case "sentAt": return { $0.sentAt.map(Timestamp.string(from:)) }
        default: return nil
        }
    }

    /// Sets (or, with `nil`, removes) the value at `path`. With `createParents`, missing
    /// intermediate objects are created; otherwise the parent must exist and be an object (the
    /// write then does nothing).
    static func write(_ value: JSON?, at path: [String], in event: inout Event, createParents: Bool) throws(RuleRuntimeError) {
        guard let first = path.first else { throw RuleRuntimeError(message: "cannot replace the whole event") }
        if let field = EventObjectField(first) {
            try field.write(value, at: path.dropFirst(), in: &event, createParents: createParents)
            return
        }
        guard stringFields.contains(first) else { throw RuleRuntimeError(message: "unknown event field \"\(first)\"") }
        guard path.count == 1 else { throw RuleRuntimeError(message: "\(first) is not an object") }
        try writeText(value, field: first, in: &event)
    }

    private static func writeText(_ value: JSON?, field: String, in event: inout Event) throws(RuleRuntimeError) {
        let text: String?
        switch value {
        case nil, .null?: text = nil
        case .string(let string)?: text = string
        default: throw RuleRuntimeError(message: "\(field) must be a string")
        }
        switch field {
        case "event": event.event = text
        case "name": event.name = text
        case "userId": event.userId = text
        case "anonymousId": event.anonymousId = text
        case "groupId": event.groupId = text
        case "previousId": event.previousId = text
        default: throw RuleRuntimeError(message: "\(field) cannot be changed by a rule")
        }
    }
}

/// Edits nested JSON.
enum JSONEdit {
    /// `root` with the value at `path` set (or removed when `value` is nil).
    static func setting(_ value: JSON?, at path: ArraySlice<String>, in root: JSON, createParents: Bool) throws(RuleRuntimeError) -> JSON {
        guard let key = path.first else { return value ?? .null }
        let rest = path.dropFirst()
        switch root {
        case .object(var members):
            if rest.isEmpty {
                members[key] = value
            } else if let child = members[key] {
                guard child.objectValue != nil || child.arrayValue != nil else {
                    if createParents { throw RuleRuntimeError(message: "\(key) is not an object") }
                    return root
                }
                members[key] = try setting(value, at: rest, in: child, createParents: createParents)
            } else {
                guard createParents, value != nil else { return root }
                members[key] = try setting(value, at: rest, in: .object([:]), createParents: true)
            }
            return .object(members)
        case .array(var items):
            guard let index = Int(key), items.indices.contains(index) else { return root }
            if rest.isEmpty {
                if let value { items[index] = value } else { items.remove(at: index) }
            } else {
                items[index] = try setting(value, at: rest, in: items[index], createParents: createParents)
            }
            return .array(items)
        default:
            if createParents { throw RuleRuntimeError(message: "cannot write \(key) inside a \(Functions.typeName(root))") }
            return root
        }
    }

    /// Applies `transform` to the object at the end of `path`, or to every object in the array
    /// there; a missing or non-object target changes nothing.
    static func updatingObjects(at path: ArraySlice<String>, in root: JSON, _ transform: ([String: JSON]) -> [String: JSON]) -> JSON {
        guard let key = path.first else {
            switch root {
            case .object(let members): return .object(transform(members))
            case .array(let items): return .array(items.map { $0.objectValue.map { .object(transform($0)) } ?? $0 })
            default: return root
            }
        }
        switch root {
        case .object(var members):
            guard let child = members[key] else { return root }
            members[key] = updatingObjects(at: path.dropFirst(), in: child, transform)
            return .object(members)
        case .array(var items):
            guard let index = Int(key), items.indices.contains(index) else { return root }
            items[index] = updatingObjects(at: path.dropFirst(), in: items[index], transform)
            return .array(items)
        default:
            return root
        }
    }
}
