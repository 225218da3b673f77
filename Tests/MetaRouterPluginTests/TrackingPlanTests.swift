import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// The tracking plan through the public API: report, strip and block, the unplanned rule,
/// identify traits, the callback, the once-per-rule log, replacement in call order, and
/// Segment Protocols' export format.
@Suite struct TrackingPlanTests {
    private let planText = """
        { "unplanned": "report",
          "events": {
            "Order Completed": { "properties": {
              "type": "object", "required": ["total", "currency"], "additionalProperties": false,
              "properties": { "total": { "type": "number", "minimum": 0 },
                              "currency": { "enum": ["EUR", "USD"] },
                              "coupon": { "type": "string", "maxLength": 8 } } } } },
          "identify": { "traits": { "properties": { "email": { "type": "string", "pattern": "@" } } } } }
        """

    private final class Reports: Sendable {
        let all = Locked<[PlanViolationReport]>([])
    }

    private func instance(_ mode: TrackingPlanMode, capture: CapturingDestination, reports: Reports? = nil,
                          logs: RecordingLogSink = RecordingLogSink()) throws -> MetaRouter.Analytics {
        var options = localOptions("plan-\(mode)-\(UUID())", capture: capture, logs: logs)
        options.trackingPlan = try TrackingPlan(json: planText)
        options.trackingPlanMode = mode
        if let reports { options.onPlanViolation = { report in reports.all.withLock { $0.append(report) } } }
        return MetaRouter.Analytics.instance(for: options)
    }

    private func sendSamples(_ analytics: MetaRouter.Analytics) {
        analytics.track("Order Completed", properties: ["total": 10, "currency": "EUR"])
        analytics.track("Order Completed", properties: ["total": -1, "currency": "GBP", "coupon": "WELCOME2024", "debug": true])
        analytics.track("Order Completed", properties: ["currency": "USD"])
        analytics.track("Not Planned", properties: ["x": 1])
        analytics.identify("user-1", traits: ["email": "not-an-address"])
    }

    @Test func reportDeliversEverythingAndReportsWhatIsWrong() async throws {
        let capture = CapturingDestination()
        let reports = Reports()
        let logs = RecordingLogSink()
        let analytics = try instance(.report, capture: capture, reports: reports, logs: logs)
        sendSamples(analytics)
        sendSamples(analytics)
        await analytics.flushAndWait()
        #expect(capture.events.count == 10)
        let first = reports.all.current.prefix(4)
        #expect(first.map(\.action) == [.report, .report, .report, .report])
        let rules = first.map { Set($0.violations.map(\.rule)) }
        #expect(rules[0] == ["minimum", "enum", "maxLength", "additionalProperties"])
        #expect(rules[1] == ["required"])
        #expect(rules[2] == ["unplanned"])
        #expect(rules[3] == ["pattern"])
        #expect(first[1].violations.first?.path == "properties.total")
        #expect(reports.all.current.count == 8)
        #expect(logs.messages.filter { $0.contains("sdk.plan_violation") }.count == 7)
        let info = await analytics.getDebugInfo()
        #expect(info.planViolations == 14)
        #expect(info.stats.dropped[.trackingPlan] == nil)
        await analytics.shutdown()
    }

    @Test func stripRemovesWhatThePlanDoesNotAllow() async throws {
        let capture = CapturingDestination()
        let analytics = try instance(.strip, capture: capture)
        sendSamples(analytics)
        await analytics.flushAndWait()
        let events = capture.events
        #expect(events.count == 5)
        #expect(events[0].properties == ["total": 10, "currency": "EUR"])
        #expect(events[1].properties == [:])
        #expect(events[2].properties == ["currency": "USD"])
        #expect(events[3].properties == ["x": 1])
        #expect(events[4].traits?["email"] == nil)
        await analytics.shutdown()
    }

    @Test func blockDropsEveryEventThatBreaksThePlan() async throws {
        let capture = CapturingDestination()
        let reports = Reports()
        let analytics = try instance(.block, capture: capture, reports: reports)
        sendSamples(analytics)
        await analytics.flushAndWait()
        #expect(capture.events.map { $0.event ?? $0.type.rawValue } == ["Order Completed"])
        #expect(reports.all.current.allSatisfy { $0.action == .block })
        #expect((await analytics.getDebugInfo()).stats.dropped[.trackingPlan] == 4)
        await analytics.shutdown()
    }

    @Test func thePlanIsReplacedInCallOrder() async throws {
        let capture = CapturingDestination()
        let analytics = try instance(.block, capture: capture)
        analytics.track("Not Planned")
        analytics.setTrackingPlan(nil)
        analytics.track("Not Planned")
        analytics.setTrackingPlan(try TrackingPlan(json: #"{"unplanned": "block", "events": {}}"#))
        analytics.track("Not Planned")
        await analytics.flushAndWait()
        #expect(capture.events.count == 1)
        await analytics.shutdown()
    }

    /// A client started without a plan gets one at run time, in call order.
    @Test func aPlanCanArriveAfterTheStart() async throws {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("plan-later-\(UUID())", capture: capture))
        analytics.track("Before The Plan")
        analytics.setTrackingPlan(try TrackingPlan(json: #"{"unplanned": "block", "events": {"Planned": {}}}"#))
        analytics.track("After The Plan")
        analytics.track("Planned")
        await analytics.flushAndWait()
        #expect(capture.events.map(\.event) == ["Before The Plan", "Planned"])
        await analytics.shutdown()
    }

    @Test func segmentProtocolsExportsLoad() throws {
        let export = """
            { "tracking_plan": { "display_name": "Shop", "rules": {
              "events": [ { "name": "Product Viewed", "version": 1, "rules": {
                "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": { "properties": { "type": "object", "required": ["sku"],
                  "properties": { "sku": { "type": "string" }, "price": { "type": ["number", "null"] } } },
                  "context": {}, "traits": {} },
                "required": ["properties"] } } ],
              "identify": { "properties": { "traits": { "required": ["email"] } } } } } }
            """
        let plan = try TrackingPlan(json: export)
        #expect(plan.events.keys.sorted() == ["Product Viewed"])
        #expect(plan.unplanned == .report)
        let good = Event(type: .track, event: "Product Viewed", properties: ["sku": "A", "price": .null])
        let bad = Event(type: .track, event: "Product Viewed", properties: ["price": "9"])
        #expect(plan.violations(of: good).isEmpty)
        #expect(Set(plan.violations(of: bad).map(\.rule)) == ["required", "type"])
        #expect(plan.violations(of: Event(type: .identify, traits: [:])).map(\.rule) == ["required"])
        #expect(throws: TrackingPlan.LoadError.self) { try TrackingPlan(json: #"{"events": {"E": {"properties": {"type": 3}}}}"#) }
        #expect(throws: TrackingPlan.LoadError.self) { try TrackingPlan(json: "not json") }
    }
}
