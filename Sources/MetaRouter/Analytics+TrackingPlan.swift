#if TrackingPlan
import Foundation

/// The tracking plan: the method the `TrackingPlan` trait adds.
extension Analytics {
    /// Replaces the tracking plan for the calls made after this one (`nil` removes it): calls
    /// made before it are checked against the previous plan.
    ///
    /// - Parameter plan: The plan, or `nil` for none.
    public func setTrackingPlan(_ plan: TrackingPlan?) {
        engine.performCall("setTrackingPlan call") { timeline in
            guard let current = self.instance(on: timeline) else { return }
            if let plugin = current.slots.trackingPlan {
                plugin.setPlan(plan)
            } else if let plan {
                let plugin = TrackingPlanPlugin(plan: plan, mode: current.options.trackingPlanMode, onViolation: current.options.onPlanViolation)
                timeline.add(plugin, at: .last)
                current.slots.trackingPlan = plugin
            }
        }
    }
}
#endif
