import Foundation
import MetaRouterEventsGenerator
import MetaRouterTesting

/// The space of plans users can write, to draw from: names from every Swift keyword, the public
/// type names of Swift, Foundation and SwiftUI an app uses, the facade's methods, digits,
/// punctuation, emoji, and names equal after case folding or Unicode normalisation; schemas of
/// every kind the generator types, nested, with enums of strings, integers and nulls. And, for a
/// drawn schema, random values the plan accepts, as the generated types can hold them.
struct PlanSpace {
    static let keywords = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "nonisolated", "open", "operator", "package", "precedencegroup", "private", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await",
        "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "async", "some", "any", "Type", "Protocol", "_", "actor",
        "macro", "get", "set", "willSet", "didSet", "mutating", "nonmutating", "override", "convenience", "required", "dynamic", "lazy",
        "optional", "final", "weak", "unowned", "indirect", "infix", "prefix", "postfix", "each", "repeat", "sending", "isolated",
    ]
    static let typeNames = [
        "Error", "Task", "Result", "URL", "Data", "Date", "String", "Int", "Double", "Bool", "Array", "Dictionary", "Set", "Optional",
        "Character", "Void", "Never", "AnyObject", "Codable", "Encodable", "Decodable", "Hashable", "Equatable", "Comparable",
        "CaseIterable", "Case Iterable", "Sendable", "Identifiable", "CodingKey", "CodingKeys", "coding keys", "Encoder", "Decoder",
        "JSONEncoder", "JSONDecoder", "UUID", "Locale", "TimeZone", "Calendar", "Bundle", "Notification", "UserDefaults", "FileManager",
        "Timer", "DispatchQueue", "NSObject", "Measurement", "Decimal", "View", "Text", "Color", "Image", "Button", "List", "Font",
        "State", "Binding", "Environment", "Published", "ObservableObject", "App", "Scene", "Window", "Label", "Toggle", "Form",
        "Section", "Group", "VStack", "Spacer", "Path", "Shape", "Animation", "Analytics", "EventOptions", "JSON", "TrackingPlan",
        "PlannedEvents", "Planned Events", "Event", "IdentifyTraits", "GroupTraits", "MetaRouter", "MetaRouterCore", "Foundation",
        "Swift", "SwiftUI", "AppError", "main", "type", "protocol", "track", "codable", "hashable", "case iterable", "rawValue",
        "allCases", "hashValue", "eventName", "options", "encode", "sha256", "types", "stamped",
    ]
    static let awkward = [
        "1st Launch", "1st launch", "2", "007", "3.14", "1 2 3", "!!!", "???", "a.b.c", "a-b", "a_b", "  spaced  ", "", "$", "#tag",
        "@home", "a/b", "back\\slash", "quote\"d", "new\nline", "tab\there", "🚀", "🚀 Launched", "👍🏽", "👨‍👩‍👧", "Order Completed",
        "order_completed", "ORDER COMPLETED", "orderCompleted", "Café", "Cafe\u{301}", "ﬁle", "file", "Straße", "STRASSE", "\u{2126}",
        "\u{3A9}", "\u{212B}", "\u{C5}", "İstanbul", "istanbul", "Ünïcödé", "`tick`", "x\u{0}y",
    ]
    /// Every name to draw from.
    static let names = keywords + typeNames + EventsGenerator.analyticsMembers.sorted() + awkward

    var random: SeededRandom

    mutating func pick<Element>(_ items: [Element]) -> Element { items[random.next(items.count)] }

    /// A name from the space, now and then two joined.
    mutating func name() -> String {
        random.next(5) == 0 ? "\(pick(Self.names)) \(pick(Self.names))" : pick(Self.names)
    }

    /// A plan of `events` events (and traits), in this SDK's format, as a Foundation object.
    mutating func plan(events: Int) -> [String: Any] {
        var planned: [String: Any] = [:]
        for _ in 0..<events { planned[name()] = ["description": name(), "properties": object(depth: 0)] }
        return ["unplanned": "block", "events": planned, "identify": ["traits": object(depth: 0)], "group": ["traits": object(depth: 0)]]
    }

    /// An object schema with properties (some required, one now and then required but not declared).
    mutating func object(depth: Int) -> [String: Any] {
        var properties: [String: Any] = [:]
        for _ in 0..<random.next(depth > 2 ? 3 : 6) { properties[name()] = schema(depth: depth + 1) }
        var required = properties.keys.filter { _ in random.next(2) == 0 }
        if random.next(6) == 0 { required.append(name()) }
        var schema: [String: Any] = ["type": "object", "properties": properties, "required": required]
        if random.next(4) == 0 { schema["type"] = nil }
        return schema
    }

    mutating func schema(depth: Int) -> [String: Any] {
        switch random.next(depth > 4 ? 12 : 15) {
        case 0: return ["type": "string"]
        case 1: return ["type": "integer"]
        case 2: return ["type": "number"]
        case 3: return ["type": "boolean"]
        case 4: return ["type": "string", "format": "date-time"]
        case 5: return ["type": "string", "enum": (0..<1 + random.next(4)).map { _ in name() }]
        case 6: return ["type": "integer", "enum": (0..<1 + random.next(4)).map { _ in random.next(2_001) - 1_000 }]
        case 7:
            let values: [Any] = random.next(2) == 0 ? (0..<1 + random.next(3)).map { _ in name() } : [random.next(10), random.next(10) + 10]
            return ["enum": values + [NSNull()]]
        case 8: return ["type": [pick(["string", "integer", "number", "boolean"]), "null"]]
        case 9: return random.next(2) == 0 ? ["const": name()] : ["const": random.next(100)]
        case 10: return [:]
        case 11: return ["type": "object"]
        case 12: return ["type": "array", "items": schema(depth: depth + 1)]
        case 13: return ["type": "array"]
        default: return object(depth: depth)
        }
    }

    /// A value `schema` accepts, as the generated type holds it (`NSNull` for `null`).
    mutating func value(_ schema: [String: Any], depth: Int = 0) -> Any {
        if let values = (schema["enum"] as? [Any]) ?? schema["const"].map({ [$0] }) { return pick(values) }
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if types.contains("null"), random.next(3) == 0 { return NSNull() }
        let kind = types.first { $0 != "null" } ?? (schema["properties"] != nil ? "object" : "any")
        switch kind {
        case "string":
            guard schema["format"] as? String == "date-time" else { return name() }
            return Self.timestamp(Double(random.next(1_000_000)) * 250_000 - 62_000_000_000 + Double(random.next(1000)) / 1000)
        case "integer": return random.next(2_000_001) - 1_000_000
        case "number": return random.next(2) == 0 ? Double(random.next(1000)) : Double(random.next(2_000_000) - 1_000_000) / 7
        case "boolean": return random.next(2) == 0
        case "array":
            guard let items = schema["items"] as? [String: Any] else { return (0..<random.next(3)).map { _ in anyValue(depth: depth + 1) } }
            return (0..<random.next(3)).map { _ in value(items, depth: depth + 1) }
        case "object":
            let properties = schema["properties"] as? [String: Any] ?? [:]
            let required = Set(schema["required"] as? [String] ?? [])
            var members: [String: Any] = [:]
            for (key, member) in properties where required.contains(key) || random.next(2) == 0 {
                members[key] = value(member as? [String: Any] ?? [:], depth: depth + 1)
            }
            for key in required where properties[key] == nil { members[key] = anyValue(depth: depth + 1) }
            return members
        default: return anyValue(depth: depth)
        }
    }

    /// Any JSON value, for a property the plan leaves open.
    mutating func anyValue(depth: Int) -> Any {
        switch random.next(depth > 3 ? 5 : 7) {
        case 0: return name()
        case 1: return random.next(1000)
        case 2: return Double(random.next(1000)) / 8
        case 3: return random.next(2) == 0
        case 4: return NSNull()
        case 5: return (0..<random.next(3)).map { _ in anyValue(depth: depth + 1) }
        default: return Dictionary(uniqueKeysWithValues: (0..<random.next(3)).map { index in ("\(name())\(index)", anyValue(depth: depth + 1)) })
        }
    }

    /// An ISO 8601 timestamp with milliseconds, as the wire writes them.
    static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
