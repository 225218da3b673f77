#if TrackingPlan
import Foundation

extension MetaRouterClient {
    /// Replaces the tracking plan (`nil` removes it), in call order: calls made before this one
    /// are checked against the previous plan, calls made after it against this one.
    package func setTrackingPlan(_ plan: TrackingPlan?) {
        let (mode, onViolation) = (options.trackingPlanMode, options.onPlanViolation)
        client.perform { timeline in
            if let plugin = timeline.find(TrackingPlanPlugin.self) {
                plugin.setPlan(plan)
            } else if let plan {
                timeline.add(TrackingPlanPlugin(plan: plan, mode: mode, onViolation: onViolation), at: .last)
            }
        }
    }
}
#endif
