import Foundation
import MetaRouter
import MetaRouterTesting
import SuiteEvents
import Testing

/// For every schema group of the draft 7 suite the plan supports, the suite's valid instances
/// become values of the generated type (decoded from JSON), and those values, tracked through
/// an instance enforcing the same plan in `block` mode, are never a violation. (159 of the 169
/// valid instances are built; the other 10 are not objects, under a schema that has `properties`
/// or `required` but no `type`.)
@Suite struct SuiteValuesTests {
    static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/MetaRouterPluginTests/Fixtures/jsonschema_suite_draft7.json")

    @Test func validSuiteInstancesBuiltThroughTheTypesKeepThePlan() async throws {
        let suite = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as? [String: Any]
        let groups = try #require(suite?["groups"] as? [[String: Any]])
        #expect(SuiteEvents.types.count == groups.count - 1)
        let capture = CapturingDestination()
        let plan = try SuiteEvents.trackingPlan()
        let analytics = Analytics.capturing(into: capture) { options in
            options.trackingPlan = plan
            options.trackingPlanMode = .block
        }
        var built = 0
        var unrepresentable: [String] = []
        for (index, group) in groups.enumerated() {
            let name = "Suite \(index) \(group["keyword"] ?? "")"
            guard let type = SuiteEvents.types[name] else { continue }
            for pair in group["cases"] as? [[Any]] ?? [] where pair.last as? Bool == true {
                let properties: [String: Any] = ["value": pair[0], "nested": ["inner": pair[0]]]
                let data = try JSONSerialization.data(withJSONObject: properties, options: [.fragmentsAllowed])
                guard let value = try? JSONDecoder().decode(type, from: data) else {
                    unrepresentable.append("\(name): \(String(decoding: try JSONSerialization.data(withJSONObject: pair[0], options: [.fragmentsAllowed]), as: UTF8.self))")
                    continue
                }
                analytics.track(name, properties: value)
                built += 1
            }
        }
        await analytics.performAndWait { _ in }
        let info = await analytics.getDebugInfo()
        #expect(info.stats.dropped[.trackingPlan] == nil, "block mode drops every event that breaks the plan")
        #expect(capture.events.count == built)
        #expect(built >= 150, "\(built) values built; not representable: \(unrepresentable)")
        // Only a schema with `properties` or `required` and no `type` admits non-objects, which
        // the struct made for it cannot hold (Docs/TypedEvents.md).
        #expect(unrepresentable.allSatisfy { $0.contains(" properties: ") || $0.contains(" required: ") }, "\(unrepresentable)")
        print("suite values: \(built) built through the generated types, none a violation; not representable in the types: \(unrepresentable.count) \(unrepresentable)")
        await analytics.shutdown()
    }
}
