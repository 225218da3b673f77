import Foundation
import MetaRouterCore

/// What the tracking plan plugin found wrong with one event, and what it did.
public struct PlanViolationReport: Sendable {
    /// The event's type.
    public var type: EventType
    /// Its name (`track` event, `screen` / `page` name), if it has one.
    public var name: String?
    /// Its messageId.
    public var messageId: String
    /// What was wrong.
    public var violations: [PlanViolation]
    /// What was done with the event: delivered as it was (`report`), delivered without the
    /// properties (or traits) the plan does not allow (`strip`), or dropped (`block`). It can
    /// differ from the mode in force: an unplanned event the plan blocks is dropped in every
    /// mode, and `strip` reports an event whose schema it cannot read.
    public var action: TrackingPlanMode
}

/// What to do with an event that breaks the plan.
public enum TrackingPlanMode: String, Sendable {
    /// Deliver, report.
    case report
    /// Remove what the plan does not allow, deliver, report.
    case strip
    /// Drop, report.
    case block
}

/// Enforces a ``TrackingPlan`` on the device, before anything is queued: `report` delivers
/// the event and reports what is wrong; `strip` removes the top-level properties (or traits)
/// the plan does not allow — not listed under `additionalProperties: false`, or with a value
/// that breaks its schema — and reports what remains wrong (a missing required property);
/// `block` drops an event with any violation. An event the plan does not list follows the
/// plan's `unplanned` rule. Every violation is counted and handed to `onViolation`; the log
/// names each event name and rule once (`sdk.plan_violation`).
///
/// A `before` plugin after consent, super properties and scrubbing, so it checks what would be
/// sent. The plan can be replaced at run time, in call order (``setPlan(_:)``).
package final class TrackingPlanPlugin: Plugin {
    package typealias Mode = TrackingPlanMode

    /// Runs among the `before` plugins.
    package let type = PluginType.before
    /// The plan in force (`nil`: nothing is checked).
    package private(set) var plan: TrackingPlan?
    /// What is done with violations.
    package var mode: Mode
    /// Violations found so far.
    package private(set) var violationCount = 0
    /// Events dropped by the plan so far.
    package private(set) var blockedCount = 0
    private let onViolation: (@Sendable (PlanViolationReport) -> Void)?
    private weak var analytics: AnalyticsClient?
    private var logged: Set<String> = []

    /// Distinct event-name-and-rule pairs logged at most, so hostile names cannot grow memory.
    static let maximumLogged = 1024

    /// A plugin enforcing `plan` in `mode`, calling `onViolation` for each event that breaks it.
    package init(plan: TrackingPlan?, mode: Mode = .report, onViolation: (@Sendable (PlanViolationReport) -> Void)? = nil) {
        self.plan = plan
        self.mode = mode
        self.onViolation = onViolation
    }

    /// Keeps the client for logging.
    package func configure(analytics: AnalyticsClient) { self.analytics = analytics }

    /// Replaces the plan (call it on the executor: `setTrackingPlan(_:)` does).
    package func setPlan(_ newPlan: TrackingPlan?) { plan = newPlan }

    /// Checks the event against the plan and acts on the mode.
    package func execute(event: Event) -> Event? {
        guard let plan else { return event }
        let violations = plan.violations(of: event)
        guard !violations.isEmpty else { return event }
        let unplannedBlock = plan.unplanned == .block && violations.contains { $0.rule == "unplanned" }
        if mode == .block || unplannedBlock {
            blockedCount += 1
            report(event, violations, action: .block)
            return nil
        }
        guard mode == .strip, let schema = plan.schema(for: event) else {
            report(event, violations, action: .report)
            return event
        }
        var stripped = event
        let isTraits = event.type == .identify || event.type == .group
        var values = (isTraits ? event.traits : event.properties) ?? [:]
        for (name, value) in values where schema.forbidsMember(name) || !(schema.memberSchema(name)?.accepts(value) ?? true) {
            values[name] = nil
        }
        if isTraits { stripped.traits = values } else { stripped.properties = values }
        report(event, violations, action: .strip)
        return stripped
    }

    private func report(_ event: Event, _ violations: [PlanViolation], action: TrackingPlanMode) {
        violationCount += violations.count
        let name = event.event ?? event.name
        onViolation?(PlanViolationReport(type: event.type, name: name, messageId: event.messageId, violations: violations, action: action))
        guard let logger = analytics?.logger else { return }
        for violation in violations where logged.count < Self.maximumLogged {
            let key = "\(event.type.rawValue) \(name ?? "")|\(violation.rule)|\(violation.path)"
            guard logged.insert(key).inserted else { continue }
            logger.warning(
                "sdk.plan_violation: \(event.type.rawValue)\(name.map { " \"\($0)\"" } ?? ""): \(violation) (\(action.rawValue); "
                    + "logged once per event and rule)")
        }
    }
}
