#if ErrorCapture
import Foundation

/// Error reports and breadcrumbs: the methods the `ErrorCapture` trait adds.
extension Analytics {
    /// Reports a caught error as an `Error Captured` event: its type, message (and `domain` /
    /// `code`), `handled`, a fingerprint of where it was captured, the stack frames and the
    /// breadcrumbs, merged with `properties`. Gated by the errors consent channel, filtered by
    /// `beforeSendError`, rate-limited; see `Docs/ErrorCapture.md`.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - handled: `false` for one the app could not recover from.
    ///   - properties: JSON-compatible properties to add to the report.
    public func captureError(_ error: any Error, handled: Bool = true, properties: [String: Any]? = nil) {
        let converted = engine.inputProblems.converted(properties ?? [:], root: "properties", call: "captureError")
        capture(CapturedError(error), handled: handled, properties: converted, frames: .current())
    }

    /// Adds a breadcrumb to the trail error reports carry, in call order. While analytics
    /// consent is withdrawn it is not kept (nor copied to the crash record); with PII
    /// scrubbing on, its message and data are scrubbed first.
    ///
    /// - Parameter breadcrumb: What happened, kept in call order.
    public func addBreadcrumb(_ breadcrumb: Breadcrumb) {
        engine.performCall("addBreadcrumb call") { timeline in
            guard timeline.collectsAnalytics, let plugin = self.pillars(timeline).breadcrumbs?(timeline) else { return }
            var kept = breadcrumb
            kept.message = timeline.scrubbedForExport(breadcrumb.message)
            kept.data = breadcrumb.data.map { timeline.scrubbedForExport($0) }
            plugin.add(kept)
        }
    }

    func capture(_ error: CapturedError, handled: Bool, properties: [String: JSON], frames: StackFrames) {
        let engine = engine
        let now = engine.configuration.clock.now()
        // Built and run through the timeline in one operation, so the report keeps its place
        // among the calls: a consent change made just after it does not reach it.
        engine.performCall("captureError call") { timeline in
            guard let plugin = self.pillars(timeline).errorCapture?(timeline) else { return }
            #if Privacy
            if let consent = self.pillars(timeline).consent?(timeline), !consent.state.errors { return }
            #endif
            let breadcrumbs = self.pillars(timeline).breadcrumbs?(timeline).breadcrumbs ?? []
            guard let event = plugin.event(for: error, handled: handled, properties: properties, frames: frames, breadcrumbs: breadcrumbs, now: now)
            else { return }
            _ = timeline.process(event)
        }
    }
}
#endif
