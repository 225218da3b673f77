#if CrashCapture
import Foundation

extension Analytics {
    /// Turns the crash records earlier runs left into `Application Crashed` events, in crash
    /// order, through the whole timeline (the errors consent channel as it is now, then
    /// `beforeSendError`). A record is removed one executor turn later, once the log has
    /// written the event (the destination's commit is prompt work): a start killed before that
    /// reads the record again and sends the same `messageId`.
    func deliverCrashReports() {
        let engine = engine
        engine.perform { timeline in
            guard let crashes = self.pillars(timeline).crashReports?(timeline) else { return }
            self.pillars(timeline).breadcrumbs?(timeline).crashSlots = crashes.slots
            for (file, report) in crashes.pendingReports() {
                guard let report else {
                    engine.logger.warning("sdk.crash_record_unreadable: \(file.lastPathComponent) is not a whole crash record; removed")
                    crashes.finish(file)
                    continue
                }
                #if Privacy
                if let consent = self.pillars(timeline).consent?(timeline), !consent.state.errors {
                    crashes.finish(file)
                    continue
                }
                #endif
                if let plugin = self.pillars(timeline).errorCapture?(timeline), let event = plugin.event(forCrash: report, frames: report.symbolicatedFrames()) {
                    _ = timeline.process(event)
                }
                engine.perform { timeline in self.pillars(timeline).crashReports?(timeline).finish(file) }
            }
        }
    }
}
#endif
