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
        // Only whether the object exists: a copy of it held across `edit` would make the edit
        // copy the whole dictionary.
        guard createParents || read(event) != nil else { return }
        if rest.count == 1 {
            edit(&event) { object in
                // Rules tend to add several keys: grow once, with room for more, when fewer
                // than four are free (the first write to an event's shared dictionary then
                // copies and grows it in one step, instead of a copy now and a regrowth later).
                if value != nil, object.capacity - object.count < 4 {
                    object.reserveCapacity(max(object.count * 2, object.count + 16))
                }
                object[key] = value
            }
            return
        }
        let updated = try JSONEdit.setting(value, at: rest, in: .object(read(event) ?? [:]), createParents: createParents)
        replace(with: updated.objectValue, in: &event)
    }
}
