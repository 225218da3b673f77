import MetaRouterCore

/// An allow- or drop-list of keys (`allow properties: [...]`, `remove properties: [...]`).
struct KeyFilter: Sendable {
    /// The listed keys.
    private let keys: Set<String>
    /// The same keys in the order given, looked up one by one when removing.
    private let listed: [String]
    /// Whether the listed keys are the ones kept (an allow-list) rather than removed.
    private let allows: Bool

    /// Keeps only `keys`.
    init(allowing keys: [String]) {
        self.keys = Set(keys)
        listed = keys
        allows = true
    }

    /// Removes `keys`.
    init(removing keys: [String]) {
        self.keys = Set(keys)
        listed = keys
        allows = false
    }

    /// Whether `key` stays.
    func keeps(_ key: String) -> Bool { keys.contains(key) == allows }

    /// The action filtering the object at `path` (or each object of the array there). An object
    /// field of the event itself (`properties: [...]`) is resolved now and edited in place, and
    /// only when a key goes: the keys are removed one by one, the others are not hashed again.
    /// That form cannot fail; a deeper path is walked when the rule runs.
    func form(at path: [String]) -> CompiledForm {
        if path.count == 1, let field = EventObjectField(path[0]) {
            if !allows {
                // A drop-list asks for each listed key's index: nothing is built when none is there.
                let listed = listed
                let keys = listed.map { ObjectKeyPath(field, $0) }
                return .inPlace { event, _ throws in
                    guard keys.contains(where: { $0.isPresent(in: event) }) else { return true }
                    field.edit(&event) { object in
                        for key in listed { object.removeValue(forKey: key) }
                    }
                    return true
                }
            }
            let kept = keys
            return .inPlace { event, _ throws in
                guard let doomed = field.read(event).map({ $0.keys.filter { !kept.contains($0) } }), !doomed.isEmpty else { return true }
                field.edit(&event) { object in
                    for key in doomed { object.removeValue(forKey: key) }
                }
                return true
            }
        }
        return .mayThrow { event, _ throws in
            try apply(at: path, in: &event)
            return true
        }
    }

    private func apply(at path: [String], in event: inout Event) throws(RuleRuntimeError) {
        guard let field = path.first else {
            let top = event.jsonObject()
            for key in top.keys where !keeps(key) && !["type", "messageId", "timestamp", "context"].contains(key) {
                try EventAccess.write(nil, at: [key], in: &event, createParents: false)
            }
            return
        }
        guard let current = EventAccess.reader([field])(event, .none), current.objectValue != nil else { return }
        let updated = JSONEdit.updatingObjects(at: path.dropFirst(), in: current) { $0.filter { keeps($0.key) } }
        try EventAccess.write(updated, at: [field], in: &event, createParents: false)
    }
}
