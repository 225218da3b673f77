/// One plugin's last rewrite of an event's context, kept so the next event carrying the same
/// context gets the same result. Nearly every event carries the context plugin's shared
/// dictionary (or the same per-call context, merged into it); a plugin that writes a key into
/// it would otherwise copy the whole dictionary for every event, and the copy would defeat the
/// storage-identity fast path of every equality check after it (the encoder's cache of the
/// context's JSON among them).
package struct ContextRewrite {
    private var last: (value: JSON, input: [String: JSON], output: [String: JSON])?

    /// Nothing remembered yet.
    package init() {}

    /// `context` rewritten by `write` for `value` (what the rewrite depends on): the remembered
    /// result when the last rewrite had the same value and an equal context — a storage-identity
    /// check when the context is the shared one — else `write` applied to a copy, remembered.
    package mutating func apply(to context: [String: JSON], for value: JSON, _ write: (inout [String: JSON]) -> Void) -> [String: JSON] {
        if let last, last.value == value, last.input == context { return last.output }
        var output = context
        write(&output)
        last = (value, context, output)
        return output
    }
}
