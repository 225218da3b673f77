import MetaRouterCore
import MetaRouterTrackingPlan

/// Generates typed events from a tracking plan: the code the `MetaRouterEvents` build-tool
/// plugin writes at every build and `metarouter plan codegen` writes for teams that check code
/// in. See `Docs/TypedEvents.md` for the mapping and the naming rules.
public enum EventsGenerator {
    /// Methods of `Analytics` a planned event's method may not take: it would clash with them.
    private static let analyticsMembers: Set<String> = [
        "track", "identify", "group", "screen", "page", "alias", "flush", "flushAndWait", "reset", "resetAndWait", "shutdown",
        "forget", "process", "perform", "performAndWait", "add", "remove", "startSession", "endSession", "setTracing",
        "setLogLevel", "enableDebugLogging", "getDebugInfo", "getAnonymousId", "setAdvertisingId", "clearAdvertisingId",
        "recordOpenedURL", "emit", "captureError", "addBreadcrumb", "setConsent", "setScrubPII", "setTrackingPlan",
        "registerSuperProperty", "registerSuperPropertyOnce", "unregisterSuperProperty", "isEntitled", "entitlements",
        "refreshEntitlements", "recordPurchase", "replaceRules", "planned", "initialize", "instance",
        "shared", "capturing",
    ]

    /// Which planned events a code base calls, which it never calls, and which untyped
    /// `track("…")` names it sends that the plan does not list: what `metarouter plan status`
    /// prints.
    ///
    /// - Parameters:
    ///   - plan: The plan file's text (our format or a Segment Protocols export).
    ///   - sources: The text of each Swift file to read.
    /// - Returns: By plan name and sorted: `called`, the planned events the sources call, typed
    ///   (`analytics.orderCompleted(…)`, `OrderCompleted(…)`) or by name
    ///   (`track("Order Completed")`); `neverCalled`, the planned events no source calls;
    ///   `unplanned`, the names passed to `track("…")` as a string literal that the plan does
    ///   not list.
    /// - Throws: ``GenerationError`` when the plan cannot be read or its names collide.
    public static func usage(
        plan: String, sources: [String]
    ) throws(GenerationError) -> (called: [String], neverCalled: [String], unplanned: [String]) {
        let usage = try PlanUsage(plan: plan, sources: sources)
        return (usage.called, usage.neverCalled, usage.unplanned)
    }

    /// The Swift source for `plan` (our format or a Segment Protocols export).
    ///
    /// - Parameters:
    ///   - plan: The plan file's text.
    ///   - planName: The file's name, for the generated header.
    /// - Returns: One Swift file: a value type per planned event, the traits types, and typed
    ///   methods on `Analytics`.
    /// - Throws: ``GenerationError`` naming the plan entry that cannot become Swift.
    public static func generate(plan: String, planName: String = "tracking-plan.json") throws(GenerationError) -> String {
        let schemas = try document(plan)
        var writer = EventsCodeWriter()
        writer.header(planName: planName, sha256: SHA256.hex(Array(plan.utf8)))
        var events: [(model: ObjectModel, name: String, method: String)] = []
        for (entry, typeName, method) in try names(of: schemas) {
            let model = try SwiftTypeMapper(place: "\(SwiftNames.literal(entry.name)) (\(entry.place))").object(
                entry.schema, typeName: typeName, description: entry.description)
            writer.structure(model, eventName: entry.name, place: entry.place)
            events.append((model, entry.name, method))
        }
        var identify: ObjectModel?
        if let entry = schemas.identifyTraits {
            identify = try SwiftTypeMapper(place: entry.place).object(
                entry.schema, typeName: "IdentifyTraits", description: "The traits of `identify` calls, as the tracking plan defines them.")
        }
        var group: ObjectModel?
        if let entry = schemas.groupTraits {
            group = try SwiftTypeMapper(place: entry.place).object(
                entry.schema, typeName: "GroupTraits", description: "The traits of `group` calls, as the tracking plan defines them.")
        }
        if let identify { writer.structure(identify, eventName: nil, place: "identify traits") }
        if let group { writer.structure(group, eventName: nil, place: "group traits") }
        writer.registry(events)
        writer.analyticsExtension(events: events, identify: identify, group: group)
        return writer.lines.joined(separator: "\n") + "\n"
    }

    /// The plan file read as the SDK reads it (``PlanDocument``).
    static func document(_ plan: String) throws(GenerationError) -> PlanDocument {
        do { return try PlanDocument(text: plan) } catch { throw GenerationError(error.description) }
    }

    /// Each planned event with its type's and its method's Swift names; a collision is an
    /// error naming both plan entries.
    static func names(of schemas: PlanDocument) throws(GenerationError) -> [(entry: PlanDocument.Entry, typeName: String, method: String)] {
        var named: [(PlanDocument.Entry, String, String)] = []
        var typeNames: [String: String] = ["IdentifyTraits": "identify traits", "GroupTraits": "group traits"]
        var methods: [String: String] = [:]
        for entry in schemas.events {
            let typeName = SwiftNames.type(entry.name, fallback: "UnnamedEvent")
            if let other = typeNames[typeName] {
                throw GenerationError("events \(SwiftNames.literal(other)) and \(SwiftNames.literal(entry.name)) both become the type `\(typeName)`; rename one in the plan")
            }
            typeNames[typeName] = entry.name
            var method = SwiftNames.member(entry.name, fallback: "unnamedEvent")
            if analyticsMembers.contains(method) || method == typeName || typeNames[method] != nil { method += "Event" }
            if let other = methods[method] {
                throw GenerationError("events \(SwiftNames.literal(other)) and \(SwiftNames.literal(entry.name)) both become the method `\(method)`; rename one in the plan")
            }
            methods[method] = entry.name
            named.append((entry, typeName, method))
        }
        return named
    }
}
