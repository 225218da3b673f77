/// A plugin that reacts to the application's lifecycle (delivery does: it flushes and persists
/// when the app goes to the background). The lifecycle plugin calls these on the executor.
public protocol LifecycleAware: Plugin {
    /// The app came to the foreground: restart timers, send what is queued.
    func applicationDidEnterForeground()
    /// The app went to the background: send what is queued, persist the rest, stop timers.
    func applicationDidEnterBackground()
    /// The process is about to end: persist what is queued.
    func applicationWillTerminate()
}
