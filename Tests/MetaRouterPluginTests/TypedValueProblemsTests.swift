import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// What a typed value can hold but the wire cannot carry is dropped alone, with its reason, and
/// never changed: NaN and the infinities, and dates outside years 0000–9999.
@Suite struct TypedValueProblemsTests {
    struct Purchase: Encodable {
        var total: Double
        var discount: Double?
        var placedAt: Date
        var shippedAt: Date?
        var sku: String
        var lines: [Double]
    }

    private final class Problems: Sendable {
        let seen = Locked<[InputProblem]>([])
    }

    @Test func unsendableValuesAreDroppedAloneAndNamed() async {
        let capture = CapturingDestination()
        let problems = Problems()
        let analytics = Analytics.capturing(into: capture) { options in
            options.onInvalidInput = { problem in problems.seen.withLock { $0.append(problem) } }
        }
        let year10000 = Date(timeIntervalSince1970: 253_402_300_800 + 86_400)
        let beforeYear0 = Date(timeIntervalSince1970: -62_167_219_200 - 86_400)
        analytics.track("Purchase", properties: Purchase(
            total: .nan, discount: .infinity, placedAt: year10000, shippedAt: beforeYear0, sku: "A-1", lines: [1, -.infinity]))
        analytics.track("Dictionary", properties: ["at": year10000, "kept": 1])
        await analytics.performAndWait { _ in }
        let seen = problems.seen.current
        let byPath = Dictionary(seen.map { ($0.keyPath, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byPath["properties.total"]?.code == .propertyNotFinite, "\(seen)")
        #expect(byPath["properties.discount"]?.code == .propertyNotFinite, "\(seen)")
        #expect(byPath["properties.lines[1]"]?.code == .propertyNotFinite, "\(seen)")
        #expect(byPath["properties.placedAt"]?.message.contains("outside years 0000–9999") == true, "\(seen)")
        #expect(byPath["properties.shippedAt"]?.message.contains("outside years 0000–9999") == true, "\(seen)")
        #expect(byPath["properties.at"]?.message.contains("outside years 0000–9999") == true, "\(seen)")
        let purchase = capture.events.first { $0.event == "Purchase" }?.properties ?? [:]
        #expect(purchase["sku"] == "A-1")
        #expect(purchase["lines"] == [1])
        #expect(purchase["placedAt"] == nil && purchase["shippedAt"] == nil, "a date the wire cannot carry is not moved into range")
        #expect(capture.events.first { $0.event == "Dictionary" }?.properties == ["kept": 1])
        await analytics.shutdown()
    }

    /// A required value the type holds but the wire cannot carry is blocked by the plan for the
    /// real reason — dropped at the call, and why — not as if the caller had left it out.
    @Test func aRequiredValueDroppedAtTheCallIsBlockedForThatReason() async throws {
        let plan = try TrackingPlan(json: """
            {"events": {"Purchase": {"properties": {"type": "object", "required": ["total", "placedAt", "sku"],
              "properties": {"total": {"type": "number"}, "placedAt": {"type": "string"}, "sku": {"type": "string"}}}},
             "Viewed": {"properties": {"type": "object", "required": ["score"]}}}}
            """)
        let capture = CapturingDestination()
        let reports = Locked<[PlanViolationReport]>([])
        let analytics = Analytics.capturing(into: capture) { options in
            options.trackingPlan = plan
            options.trackingPlanMode = .block
            options.onPlanViolation = { report in reports.withLock { $0.append(report) } }
        }
        let year10000 = Date(timeIntervalSince1970: 253_402_300_800 + 86_400)
        analytics.track("Purchase", properties: Purchase(total: .nan, discount: nil, placedAt: year10000, shippedAt: nil, sku: "A-1", lines: []))
        analytics.track("Purchase", properties: ["total": 1, "placedAt": "2026-01-01T00:00:00Z"])
        analytics.screen("Viewed", properties: ["score": Double.infinity])
        await analytics.performAndWait { _ in }
        let violations = reports.current.flatMap(\.violations)
        let byPath = Dictionary(grouping: violations, by: \.path)
        #expect(byPath["properties.total"]?.first?.message.contains("dropped at the call (NaN or infinity") == true, "\(violations)")
        #expect(byPath["properties.placedAt"]?.first?.message.contains("dropped at the call") == true, "\(violations)")
        #expect(byPath["properties.placedAt"]?.first?.message.contains("0000–9999") == true, "\(violations)")
        #expect(byPath["properties.score"]?.first?.message.contains("dropped at the call (NaN or infinity") == true, "\(violations)")
        // Left out by the caller: missing, nothing more.
        #expect(byPath["properties.sku"]?.first?.message == "missing", "\(violations)")
        #expect(capture.events.isEmpty)
        await analytics.shutdown()
    }
}
