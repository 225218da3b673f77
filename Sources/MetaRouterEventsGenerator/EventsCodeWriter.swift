/// Writes the value types of a plan: one struct per event and per traits schema, and the enums
/// and structs of their properties. Every type is declared at the namespace's level under its
/// flat name (`OrderCompleted_ItemsItem`) and reached from its parent through a `typealias`
/// (`OrderCompleted.ItemsItem`): nested declarations 32 levels deep made the compiler's time
/// grow exponentially. Every type the code names is written with its module, so nothing a plan
/// names can hide it (see ``SwiftNames``).
extension CodeLines {
    /// A struct for `model`, with its memberwise initializer and coding, then its properties'
    /// types; an event's (`eventName` given) conforms to `PlannedEvents.Event`, any other to
    /// `PlannedEvents.Value`.
    mutating func structure(_ model: ObjectModel, eventName: String?, place: String) {
        line()
        doc(model.description ?? eventName.map { "The `\(SwiftNames.inDoc($0))` event, as the tracking plan defines it." })
        if eventName == nil, model.description == nil { doc("\(place), as the tracking plan defines it.") }
        if sharedTypes.contains(model.flatName) { doc(Self.sharedNote) }
        line("struct \(model.flatName): \(eventName == nil ? "PlannedEvents.Value" : "PlannedEvents.Event") {")
        indent += 1
        if let eventName {
            line("/// The event's name on the wire.")
            line("static var eventName: Swift.String { \(SwiftNames.literal(eventName)) }")
        }
        // Constants: a `var` costs a setter, a `modify` coroutine and (optional) an initial
        // `nil` per property, half the compiler's time for an event's type.
        for property in model.properties {
            doc(property.description)
            line("let \(SwiftNames.spelled(property.swiftName)): \(property.type.spelled)\(property.isOptional ? "?" : "")")
        }
        for property in model.properties {
            guard let declared = property.type.declared else { continue }
            line("typealias \(declared.typeName) = PlannedEvents.\(declared.flatName)")
        }
        line()
        line("/// Every property: required ones without a default, optional ones `nil` unless given.")
        line("init(\(Self.parameters(model.properties, qualifiedIn: nil))) {" + (model.properties.isEmpty ? "}" : ""))
        for property in model.properties {
            let name = SwiftNames.spelled(property.swiftName)
            line("    self.\(name) = \(name)")
        }
        if !model.properties.isEmpty { line("}") }
        coding(model)
        indent -= 1
        line("}")
        nested(in: model.properties)
    }

    /// `init(from:)` and `encode(to:)` with the plan's names, through the namespace's generic
    /// helpers: one candidate per call, where the synthesised ones pick among the containers'
    /// overloads for every property (half the compiler's time at thousands of types). A
    /// required property that may be `null` sends `null` for `nil`.
    private mutating func coding(_ model: ObjectModel) {
        line()
        line("/// Decodes the plan's names.")
        line("init(from decoder: any Swift.Decoder) throws {")
        if model.properties.isEmpty {
            line("    _ = try decoder.container(keyedBy: PlannedEvents.Key.self)")
        } else {
            line("    let container: Swift.KeyedDecodingContainer<PlannedEvents.Key> = try decoder.container(keyedBy: PlannedEvents.Key.self)")
        }
        for property in model.properties {
            let helper = property.isOptional ? "take" : "need"
            line("    self.\(SwiftNames.spelled(property.swiftName)) = try PlannedEvents.\(helper)(container, \(SwiftNames.literal(property.wireName)))")
        }
        line("}")
        line()
        line("/// Encodes with the plan's names.")
        line("func encode(to encoder: any Swift.Encoder) throws {")
        line("    \(model.properties.isEmpty ? "_" : "var container: Swift.KeyedEncodingContainer<PlannedEvents.Key>") = encoder.container(keyedBy: PlannedEvents.Key.self)")
        for property in model.properties {
            let helper = property.required ? "put" : "putIfPresent"
            line("    try PlannedEvents.\(helper)(&container, self.\(SwiftNames.spelled(property.swiftName)), \(SwiftNames.literal(property.wireName)))")
        }
        line("}")
    }

    private mutating func nested(in properties: [PropertyModel]) {
        for property in properties {
            var type = property.type
            while case .array(let element) = type { type = element }
            switch type {
            case .object(let model) where model.declares: structure(model, eventName: nil, place: "`\(SwiftNames.inDoc(property.wireName))`")
            case .enumeration(let model) where model.declares: enumeration(model, property: property.wireName)
            default: break
            }
        }
    }

    private mutating func enumeration(_ model: EnumModel, property: String) {
        line()
        line("/// The values `\(SwiftNames.inDoc(property))` may take.")
        if sharedTypes.contains(model.flatName) { doc(Self.sharedNote) }
        line("enum \(model.flatName): \(model.rawType), Swift.Codable, Swift.Sendable, Swift.Hashable, Swift.CaseIterable {")
        for item in model.cases { line("    case \(SwiftNames.spelled(item.swiftName)) = \(item.literal)") }
        line("}")
    }

    /// The doc comment's note on a type several properties use.
    private static let sharedNote = "Every property of the plan with the same schema has this type (the `typealias` in each parent names it)."

    /// The parameters for `properties`, their nested types qualified with `owner` when given (a
    /// keyword needs no escaping as a label; ``SwiftNames/member(_:fallback:)`` gives none of
    /// `inout`, `var`, `let`).
    static func parameters(_ properties: [PropertyModel], qualifiedIn owner: String?) -> String {
        properties.map { property in
            let type = qualified(property.type, in: owner)
            return "\(property.swiftName): \(type)\(property.isOptional ? "?" : "")\(property.required ? "" : " = nil")"
        }.joined(separator: ", ")
    }

    private static func qualified(_ type: SwiftType, in owner: String?) -> String {
        guard let owner else { return type.spelled }
        switch type {
        case .object, .enumeration: return "\(owner).\(type.spelled)"
        case .array(let element): return "[\(qualified(element, in: owner))]"
        default: return type.spelled
        }
    }
}
