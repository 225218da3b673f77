import MetaRouterCore

/// A path naming one key of an event's object field (`properties.price`, `context.locale`):
/// the shape most rules read and write, resolved once when a rule is compiled, so running the
/// rule neither looks at the path's text again nor copies the object to change one key.
struct ObjectKeyPath: Sendable, Hashable {
    /// The object field.
    let field: EventObjectField
    /// The key inside it.
    let key: String

    /// The path `field.key`.
    init(_ field: EventObjectField, _ key: String) {
        self.field = field
        self.key = key
    }

    /// The object field and key `path` names, or `nil` when it is not two components starting
    /// with an object field.
    init?(_ path: [String]) {
        guard path.count == 2, let field = EventObjectField(path[0]) else { return nil }
        self.init(field, path[1])
    }

    /// The key's value in the event, or `nil` when it (or the object) is missing.
    func read(_ event: Event) -> JSON? {
        switch field {
        case .properties: return event.properties?[key]
        case .traits: return event.traits?[key]
        case .context: return event.context[key]
        case .integrations: return event.integrations?[key]
        }
    }

    /// Whether the event's object has the key (its value is not copied out to find that).
    func isPresent(in event: Event) -> Bool {
        switch field {
        case .properties: return event.properties?.index(forKey: key) != nil
        case .traits: return event.traits?.index(forKey: key) != nil
        case .context: return event.context.index(forKey: key) != nil
        case .integrations: return event.integrations?.index(forKey: key) != nil
        }
    }

    /// Sets the key to `value`, creating the object when the event has none and
    /// `createParents` is set (otherwise nothing happens), or removes the key when `value` is
    /// `nil` (a missing object stays missing).
    func write(_ value: JSON?, in event: inout Event, createParents: Bool) {
        switch field {
        case .properties: Self.write(value, key, into: &event.properties, createParents)
        case .traits: Self.write(value, key, into: &event.traits, createParents)
        case .context: Self.write(value, key, into: &event.context)
        case .integrations: Self.write(value, key, into: &event.integrations, createParents)
        }
    }

    private static func write(_ value: JSON?, _ key: String, into object: inout [String: JSON]?, _ createParents: Bool) {
        if object == nil {
            guard createParents, value != nil else { return }
            object = [:]
        }
        write(value, key, into: &object!)
    }

    /// Room for the keys of most events' objects and what rules add to them.
    private static let emptyWithRoom = [String: JSON](minimumCapacity: 48)

    private static func write(_ value: JSON?, _ key: String, into object: inout [String: JSON]) {
        guard let value else {
            object.removeValue(forKey: key)
            return
        }
        // Rules tend to add several keys: grow once, with room for more, when fewer than four
        // are free (the first write to an event's shared dictionary then copies and grows it in
        // one step, instead of a copy now and a regrowth later). Rebuilt here rather than with
        // `reserveCapacity`, whose resize runs the standard library's unspecialised code: every
        // key hashed and copied through witness tables, a fifth slower.
        if object.capacity - object.count < 4 {
            let wanted = max(object.count * 2, object.count + 16)
            // A copy of an empty dictionary that has the room takes its storage's type from it;
            // one made from nothing looks the type up in the runtime each time.
            var grown = wanted <= Self.emptyWithRoom.capacity ? Self.emptyWithRoom : [String: JSON](minimumCapacity: wanted)
            for (key, value) in object { grown[key] = value }
            object = grown
        }
        object[key] = value
    }
}
