import Foundation
import MetaRouter

/// The JSON Schema draft 7 suite's schema groups that the on-device plan supports, each as a
/// planned event (`Suite <group> <keyword>`, with the group's schema as property `value` and as
/// `nested.inner`), so a test can build values of the generated types from the suite's valid
/// instances. `tracking-plan.json` is written from `Tests/MetaRouterPluginTests/Fixtures/
/// jsonschema_suite_draft7.json`; group 67 is left out, since its property names (`"foo\tbar"`,
/// `"foo\nbar"`, …) collide in Swift and the generator refuses it.
public enum SuiteEvents {
    /// The planned types, by event name.
    public static var types: [String: any (Codable & Sendable).Type] { PlannedEvents.types.mapValues { $0 } }

    /// The plan, to enforce on the device.
    public static func trackingPlan() throws -> TrackingPlan {
        guard let url = Bundle.module.url(forResource: "tracking-plan", withExtension: "json") else { throw CocoaError(.fileNoSuchFile) }
        return try TrackingPlan(json: String(contentsOf: url, encoding: .utf8))
    }
}
