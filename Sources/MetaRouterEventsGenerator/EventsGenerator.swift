import MetaRouterCore
import MetaRouterTrackingPlan

/// Generates typed events from a tracking plan: the code the `MetaRouterEvents` build-tool
/// plugin writes at every build and `metarouter plan codegen` writes for teams that check code
/// in. See `Docs/TypedEvents.md` for the mapping and the naming rules.
public enum EventsGenerator {
    /// The generated code of a plan: the files and the warnings for the build.
    package struct Output: Sendable {
        /// The first file holds the namespace, the traits types and the calls every plan has;
        /// each file a contiguous share of the events (their types, their registration and their
        /// methods), so the compiler can take the files apart.
        package var files: [String]
        /// Names that came out the same and how they were told apart (``NameTable``).
        package var warnings: [String]
    }

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
    /// - Throws: ``GenerationError`` when the plan cannot be read.
    public static func usage(
        plan: String, sources: [String]
    ) throws(GenerationError) -> (called: [String], neverCalled: [String], unplanned: [String]) {
        let usage = try PlanUsage(plan: plan, sources: sources)
        return (usage.called, usage.neverCalled, usage.unplanned)
    }

    /// The Swift source for `plan` (our format or a Segment Protocols export), as one file.
    ///
    /// - Parameters:
    ///   - plan: The plan file's text.
    ///   - planName: The file's name, for the generated header.
    /// - Returns: One Swift file: the `PlannedEvents` namespace with a value type per planned
    ///   event and the traits types, and typed methods on `Analytics`.
    /// - Throws: ``GenerationError`` naming the plan entry that cannot become Swift.
    public static func generate(plan: String, planName: String = "tracking-plan.json") throws(GenerationError) -> String {
        let output = try files(plan: plan, planName: planName, shards: 1)
        let bodies = output.files.dropFirst().map { $0.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(3).joined(separator: "\n") }
        return ([output.files[0]] + bodies).joined()
    }

    /// The Swift source for `plan` as `shards + 1` files, each with an equal share of the events,
    /// and the build's warnings.
    package static func files(plan: String, planName: String = "tracking-plan.json", shards: Int) throws(GenerationError) -> Output {
        let schemas = try document(plan)
        var warnings: [String] = []
        var events: [NamedEvent] = []
        let named = names(of: schemas, warnings: &warnings)
        // The namespace's names: the events' types first, then the nested types' flat names.
        var namespace = NameTable(scope: "the namespace", kind: "type")
        for (entry, typeName, _) in named { _ = namespace.claim(typeName, for: entry.name, warnings: &warnings) }
        for typeName in ["IdentifyTraits", "GroupTraits"] { _ = namespace.claim(typeName, for: typeName, warnings: &warnings) }
        let mapper = SwiftTypeMapper(namespace: namespace)
        for (entry, typeName, method) in named {
            mapper.place = "\(SwiftNames.literal(entry.name)) (\(entry.place))"
            let model = try mapper.object(entry.schema, typeName: typeName, description: entry.description)
            events.append(NamedEvent(model: model, name: entry.name, method: method))
        }
        var traits: [String: ObjectModel] = [:]
        for (key, entry, typeName) in [("identify", schemas.identifyTraits, "IdentifyTraits"), ("group", schemas.groupTraits, "GroupTraits")] {
            guard let entry else { continue }
            mapper.place = entry.place
            traits[key] = try mapper.object(entry.schema, typeName: typeName, description: "The traits of `\(key)` calls, as the tracking plan defines them.")
        }
        warnings += mapper.warnings
        // The first file holds a share of the events too: the compiler's batch jobs take runs of
        // files, and equal shares even them out (5 to 4 of 9 on two cores, where an empty first
        // file left 5 to 3).
        let count = max(1, shards) + 1
        var main = CodeLines(sharedTypes: mapper.sharedTypes)
        main.header(planName: planName)
        main.namespace(planName: planName, sha256: SHA256.hex(Array(plan.utf8)), shards: count)
        for (key, place) in [("identify", "identify traits"), ("group", "group traits")] {
            if let model = traits[key] { main.structure(model, eventName: nil, place: place) }
        }
        main.closeNamespace()
        main.commonCalls(identify: traits["identify"], group: traits["group"])
        var files: [String] = []
        for shard in 0..<count {
            var file = main
            if shard > 0 {
                file = CodeLines(sharedTypes: mapper.sharedTypes)
                file.header(planName: planName)
            }
            file.events(Array(events[events.count * shard / count..<events.count * (shard + 1) / count]), shard: shard)
            files.append(file.text)
        }
        return Output(files: files, warnings: warnings)
    }

    /// The plan file read as the SDK reads it (``PlanDocument``), and loaded as the device
    /// loads it: a plan the device would refuse at launch (a schema it cannot compile, a
    /// `pattern` `NSRegularExpression` rejects) fails the build instead, with the same message.
    static func document(_ plan: String) throws(GenerationError) -> PlanDocument {
        do {
            let document = try PlanDocument(text: plan)
            _ = try TrackingPlan(document: document)
            return document
        } catch { throw GenerationError(error.description) }
    }

    /// Methods and properties of `Analytics` (the facade, with its extensions in the modules an
    /// app imports through `MetaRouter`, and `MetaRouterTesting`'s `capturing`) a planned
    /// event's method may not take: `Event` is appended (`Flush` → `flushEvent()`). A test
    /// holds this list to the facade's symbol graph.
    package static let analyticsMembers: Set<String> = [
        "add", "addBreadcrumb", "alias", "captureError", "capturing", "clearAdvertisingId", "client", "emit", "enableDebugLogging",
        "endSession", "entitlementChanges", "entitlements", "flush", "flushAndWait", "forget", "getAnonymousId", "getDebugInfo",
        "group", "identify", "initialize", "initializeAndWait", "instance", "isEntitled", "page", "perform", "performAndWait",
        "process", "recordOpenedURL", "recordPurchase", "refreshEntitlements", "registerSuperProperty", "registerSuperPropertyOnce",
        "remove", "replaceRules", "reset", "resetAndWait", "screen", "setAdvertisingId", "setConsent", "setLogLevel", "setScrubPII",
        "setTracing", "setTrackingPlan", "shared", "shutdown", "shutdownAll", "startSession", "track", "unregisterSuperProperty",
    ]

    /// Each planned event with its type's and its method's Swift names, told apart by their
    /// place in the plan when they come out the same (a warning says so). An event with a blank
    /// name, which `track` never sends, gets none (a warning says so too).
    static func names(of schemas: PlanDocument, warnings: inout [String]) -> [(entry: PlanDocument.Entry, typeName: String, method: String)] {
        var named: [(PlanDocument.Entry, String, String)] = []
        var typeNames = NameTable(scope: "events", kind: "type")
        var methods = NameTable(scope: "events", kind: "method on Analytics")
        for entry in schemas.events {
            // `track` ignores a blank name (`missing_event_name`), so a type for it could never be sent.
            guard !entry.name.isBlank else {
                warnings.append("events: \(SwiftNames.literal(entry.name)) is blank, and `track` sends no event with a blank name; no type is generated for it")
                continue
            }
            let typeName = typeNames.claim(SwiftNames.type(entry.name, fallback: "UnnamedEvent"), for: entry.name, warnings: &warnings)
            var method = SwiftNames.member(entry.name, fallback: "unnamedEvent")
            if analyticsMembers.contains(method) { method += "Event" }
            named.append((entry, typeName, methods.claim(method, for: entry.name, warnings: &warnings)))
        }
        return named
    }
}
