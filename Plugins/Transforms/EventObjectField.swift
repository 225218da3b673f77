import MetaRouterCore

/// The four object fields of an event a rule can edit, resolved from a path's first component
/// once, and edited in place: writing one key of `properties` changes that key, it does not
/// rebuild the dictionary.
enum EventObjectField {
    case properties, traits, context, integrations

    /// The field named `name`, or `nil` when it is not an object field.
    init?(_ name: String) {
        switch name {
        case "properties": self = .properties
        case "traits": self = .traits
        case "context": self = .context
        case "integrations": self = .integrations
        default: return nil
        }
    }

    /// The field's name in paths and messages.
    var name: String {
        switch self {
        case .properties: return "properties"
        case .traits: return "traits"
        case .context: return "context"
        case .integrations: return "integrations"
        }
    }

    /// The object, or `nil` when the event has none.
    func read(_ event: Event) -> [String: JSON]? {
        switch self {
        case .properties: return event.properties
        case .traits: return event.traits
        case .context: return event.context
        case .integrations: return event.integrations
        }
    }

    /// A reader of the value at `rest` inside the object (the object itself when `rest` is
    /// empty); one key, the common case, is read by one closure.
    func reader(_ rest: ArraySlice<String>) -> EventAccess.Reader {
        if rest.count == 1, let key = rest.first {
            switch self {
            case .properties: return { event, _ in event.properties?[key] }
            case .traits: return { event, _ in event.traits?[key] }
            case .context: return { event, _ in event.context[key] }
            case .integrations: return { event, _ in event.integrations?[key] }
            }
        }
        let field = self
        guard !rest.isEmpty else { return { event, _ in field.read(event).map { JSON.object($0) } } }
        let path = Array(rest)
        return { event, _ in field.read(event).flatMap { FieldPath.read(path, in: .object($0)) } }
    }

    /// Replaces the object (`nil` removes it; `context`, which every event has, becomes empty).
    func replace(with object: [String: JSON]?, in event: inout Event) {
        switch self {
        case .properties: event.properties = object
        case .traits: event.traits = object
        case .context: event.context = object ?? [:]
        case .integrations: event.integrations = object
        }
    }

    /// Edits the object in place, creating an empty one first when the event has none.
    func edit(_ event: inout Event, _ body: (inout [String: JSON]) -> Void) {
        switch self {
        case .properties:
            if event.properties == nil { event.properties = [:] }
            body(&event.properties!)
        case .traits:
            if event.traits == nil { event.traits = [:] }
            body(&event.traits!)
        case .context:
            body(&event.context)
        case .integrations:
            if event.integrations == nil { event.integrations = [:] }
            body(&event.integrations!)
        }
    }

    /// Sets (or, with `nil`, removes) the value at `rest` inside the object; the rules of
    /// ``EventAccess/write(_:at:in:createParents:)``. It changes nothing when it throws.
    func write(_ value: JSON?, at rest: ArraySlice<String>, in event: inout Event, createParents: Bool) throws(RuleRuntimeError) {
        guard let key = rest.first else {
            guard let value else { return replace(with: nil, in: &event) }
            guard case .object(let replacement) = value else { throw RuleRuntimeError(message: "\(name) must be an object") }
            return replace(with: replacement, in: &event)
        }
        if rest.count == 1 {
            return ObjectKeyPath(self, key).write(value, in: &event, createParents: createParents)
        }
        guard createParents || read(event) != nil else { return }
        let updated = try JSONEdit.setting(value, at: rest, in: .object(read(event) ?? [:]), createParents: createParents)
        replace(with: updated.objectValue, in: &event)
    }
}
