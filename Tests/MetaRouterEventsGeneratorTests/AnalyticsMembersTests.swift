import Foundation
import MetaRouterEventsGenerator
import MetaRouterTrackingPlan
import MetaRouterTesting
import Testing

/// The names an event's method may not take are the facade's: the generator's list equals the
/// members of `Analytics` in the symbol graphs of `MetaRouter` and `MetaRouterTesting` (the
/// modules an app imports), so a method added to the facade cannot be shadowed by a plan.
@Suite struct AnalyticsMembersTests {
    @Test func theClashListIsTheFacadesMembers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let build = Compiler.root.appendingPathComponent(".build/debug")
        let (_, info) = try await AppBuild.run("swift", ["-print-target-info"], in: directory.url)
        let target = try #require((try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any])?["target"] as? [String: Any])
        let triple = try #require(target["triple"] as? String)
        var members = Set<String>()
        for module in ["MetaRouter", "MetaRouterTesting"] {
            let out = directory.url.appendingPathComponent(module)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let (status, output) = try await AppBuild.run(
                "swift-symbolgraph-extract",
                ["-module-name", module, "-I", build.appendingPathComponent("Modules").path, "-I", build.appendingPathComponent("MetaRouterCurlShim.build").path,
                 "-target", triple, "-minimum-access-level", "public", "-skip-synthesized-members", "-output-dir", out.path],
                in: directory.url)
            #expect(status == 0, "\(output)")
            for file in try FileManager.default.contentsOfDirectory(at: out, includingPropertiesForKeys: nil) where file.pathExtension == "json" {
                let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
                for symbol in graph["symbols"] as? [[String: Any]] ?? [] {
                    guard let path = symbol["pathComponents"] as? [String], path.count == 2, path[0] == "Analytics" else { continue }
                    members.insert(String(path[1].prefix { $0 != "(" }))
                }
            }
        }
        #expect(members.count > 40, "\(members.sorted())")
        #expect(members.subtracting(EventsGenerator.analyticsMembers).isEmpty, "missing from the generator's list: \(members.subtracting(EventsGenerator.analyticsMembers).sorted())")
        #expect(EventsGenerator.analyticsMembers.subtracting(members).isEmpty, "not on the facade: \(EventsGenerator.analyticsMembers.subtracting(members).sorted())")
    }
}

/// The device and the generator read the same plans the same way: both Segment shapes, `$ref`
/// within the plan, and the same refusal of any other document.
@Suite struct PlanShapesAgreementTests {
    static let refused = [
        "[]", "{}", #"{"foo": 1}"#, #"{"rules": 5}"#, #"{"events": []}"#, #"{"tracking_plan": {"display_name": "x"}}"#,
        ##"{"events": {"A": {"properties": {"properties": {"x": {"$ref": "#/definitions/missing"}}}}}}"##,
        ##"{"definitions": {"n": {"type": "object", "properties": {"next": {"$ref": "#/definitions/n"}}}}, "events": {"A": {"properties": {"$ref": "#/definitions/n"}}}}"##,
        #"{"events": {"A": {"properties": {"properties": {"x": {"$ref": "https://example.com/s.json"}}}}}}"#,
    ]

    @Test(arguments: refused)
    func bothRefuseWithTheSameMessage(plan: String) throws {
        var device: String?
        do { _ = try TrackingPlan(json: plan) } catch { device = "\(error)" }
        var generator: String?
        do { _ = try EventsGenerator.generate(plan: plan) } catch { generator = error.description }
        #expect(device != nil && device == generator, "device: \(device ?? "accepted"), generator: \(generator ?? "accepted")")
        if plan.count < 60 { #expect(device?.contains("Public API") == true, "\(device ?? "")") }
    }

    /// The same plan in both Segment shapes, with a `$ref`, gives the same code and the same checks.
    @Test func bothSegmentShapesGiveTheSameTypes() async throws {
        let properties = ##"{"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}, "size": {"$ref": "#/definitions/size"}}}"##
        let definitions = ##""definitions": {"size": {"type": "integer", "enum": [1, 2, 3]}}"##
        let traits = ##"{"properties": {"traits": {"properties": {"email": {"type": "string"}}}}}"##
        let config = ##"{"tracking_plan": {"rules": {"events": [{"name": "Item Added", "rules": {"##
            + definitions + ##", "properties": {"properties": "## + properties + ##"}}}], "identify": "## + traits + "}}}"
        let publicAPI = ##"{"rules": [{"key": "Item Added", "type": "TRACK", "version": 1, "jsonSchema": {"properties": {}}}, "##
            + ##"{"key": "Item Added", "type": "TRACK", "version": 2, "jsonSchema": {"## + definitions + ##", "properties": {"properties": "##
            + properties + ##"}}}, {"type": "IDENTIFY", "version": 1, "jsonSchema": "## + traits + "}]}"
        let typewriter = ##"{"rules": [{"key": "Item Added", "type": "TRACK", "version": 1, "jsonSchema": {"## + definitions
            + ##", "eventMetadata": {"name": "Item Added", "type": "TRACK"}, "type": "object", "required": ["sku"], "##
            + ##""properties": {"sku": {"type": "string"}, "size": {"$ref": "#/definitions/size"}}}}]}"##
        for plan in [config, publicAPI, typewriter] {
            let code = try EventsGenerator.generate(plan: plan)
            #expect(code.contains("struct ItemAdded: PlannedEvents.Event"), "\(plan)")
            #expect(code.contains("enum ItemAdded_Size: Swift.Int"), "\(plan)")
            let device = try TrackingPlan(json: plan)
            let good = Event(type: .track, event: "Item Added", properties: ["sku": "A", "size": 2])
            let bad = Event(type: .track, event: "Item Added", properties: ["sku": "A", "size": 7])
            #expect(device.violations(of: good).isEmpty, "\(plan)")
            #expect(device.violations(of: bad).map(\.rule) == ["enum"], "\(plan)")
        }
        #expect(try EventsGenerator.generate(plan: config).contains("struct IdentifyTraits"))
        #expect(try EventsGenerator.generate(plan: publicAPI).contains("struct IdentifyTraits"))
    }
}
