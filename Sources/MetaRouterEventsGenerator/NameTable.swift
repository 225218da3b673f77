/// Swift names taken in one scope (the namespace's types, the methods on `Analytics`, one
/// struct's properties or nested types, one enum's cases). A name that comes out the same as
/// one taken before is told apart by the order it is read in (see `Docs/TypedEvents.md`): `_2`,
/// `_3`, … is appended, and a
/// warning names both plan entries and the Swift names chosen, so the build goes on.
struct NameTable {
    /// What is named here, for the warning: "events", "properties of \"Order\"", ….
    let scope: String
    /// What makes the names (`type`, `method`, `property`), for the warning.
    let kind: String
    private var taken: [String: String] = [:]

    init(scope: String, kind: String, reserved: [String: String] = [:]) {
        self.scope = scope
        self.kind = kind
        taken = reserved
    }

    /// `base`, or the first of `base_2`, `base_3`, … not taken, for the plan's `wireName`; a
    /// warning goes to `warnings` when `base` was taken.
    mutating func claim(_ base: String, for wireName: String, warnings: inout [String]) -> String {
        guard let other = taken[base] else {
            taken[base] = wireName
            return base
        }
        var index = 2
        while taken["\(base)_\(index)"] != nil { index += 1 }
        let name = "\(base)_\(index)"
        taken[name] = wireName
        warnings.append(
            "\(scope): \(SwiftNames.literal(other)) and \(SwiftNames.literal(wireName)) both come out as the \(kind) `\(base)`; "
                + "\(SwiftNames.literal(other)) keeps `\(base)` and \(SwiftNames.literal(wireName)) (read later) is `\(name)`")
        return name
    }

    /// Gives `name` back, for a type that turned out not to be declared.
    mutating func release(_ name: String) { taken[name] = nil }

    /// Whether `name` is taken.
    func contains(_ name: String) -> Bool { taken[name] != nil }
}
