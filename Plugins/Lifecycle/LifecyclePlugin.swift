import Foundation
import MetaRouterCore

/// Emits `Application Installed` / `Updated` / `Opened` / `Backgrounded` from a
/// ``LifecycleSource``, and tells ``LifecycleAware`` plugins (delivery) when the app goes to
/// the foreground, the background, or away. A utility plugin: it sees no events.
///
/// The version and build are persisted under `metarouter:lifecycle:version` and `:build`;
/// `reset()` leaves them alone.
package final class LifecyclePlugin: Plugin {
    /// Storage key of the recorded version.
    package static let versionKey = "metarouter:lifecycle:version"
    /// Storage key of the recorded build.
    package static let buildKey = "metarouter:lifecycle:build"

    /// Sees no events.
    package let type = PluginType.utility

    private let source: any LifecycleSource
    private let hadIdentity: () -> Bool
    private var ranBefore = false
    private let terminationDeadline: TimeInterval
    private var machine: LifecycleStateMachine
    private let release: LifecycleStateMachine.Release
    private weak var analytics: AnalyticsClient?

    /// Tracks the lifecycle of `release` from `source`. `hadIdentity` says whether the SDK ran
    /// on this device before (an upgrade from a version without lifecycle tracking); it is
    /// asked once, on the executor, when the plugin joins — so add the plugin ahead of the
    /// identity plugin, which creates an identity on first use. `terminationDeadline` bounds
    /// the final delivery when a signal ends a server process.
    package init(
        source: any LifecycleSource, release: LifecycleStateMachine.Release, hadIdentity: @escaping () -> Bool,
        terminationDeadline: TimeInterval = 5
    ) {
        self.source = source
        self.release = release
        self.hadIdentity = hadIdentity
        self.terminationDeadline = terminationDeadline
        machine = LifecycleStateMachine(current: release)
    }

    /// Starts listening; transitions come back to the executor in order.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        ranBefore = hadIdentity()
        let handle = WeakPlugin(self)
        let deadline = terminationDeadline
        source.start { [weak analytics] transition in
            guard let analytics else { return }
            // Stamped when the transition happens, like a call: its events' timestamps then
            // follow the call order of the calls around it.
            let at = analytics.configuration.clock.now()
            guard transition == .willTerminate(signal: nil), !analytics.isOnExecutor else {
                analytics.perform { timeline in handle.plugin?.handle(transition, at: at, timeline) }
                return
            }
            // The app is about to end (UIKit, AppKit call this on the main thread, and the
            // process ends when it returns): wait, within the deadline, until the queue is
            // written and fsync'ed on the executor.
            let persisted = DispatchSemaphore(value: 0)
            analytics.perform { timeline in
                handle.plugin?.handle(transition, at: at, timeline)
                persisted.signal()
            }
            _ = persisted.wait(timeout: .now() + deadline)
        }
    }

    /// Keeps one URL (last wins) for the next `Application Opened`.
    package func recordOpenedURL(_ url: URL, sourceApplication: String?) {
        #if DEBUG
        analytics?.assertOnExecutor()
        #endif
        machine.recordOpenedURL(url.absoluteString, sourceApplication: sourceApplication)
    }

    /// Stops listening.
    package func shutdown() { source.stop() }

    /// Runs on the executor: the events go through the timeline right here, so they keep their
    /// place among the calls made around the transition.
    private func handle(_ transition: LifecycleTransition, at time: Date, _ timeline: Timeline) {
        guard let analytics else { return }
        let outputs: [LifecycleStateMachine.Output]
        if case .launched(let inBackground) = transition {
            let storage = analytics.configuration.storage
            let stored = storage.string(forKey: Self.versionKey).map {
                LifecycleStateMachine.Release(version: $0, build: storage.string(forKey: Self.buildKey) ?? "unknown")
            }
            outputs = machine.launch(inBackground: inBackground, stored: stored, hadIdentity: ranBefore)
            storage.set(release.version, forKey: Self.versionKey)
            storage.set(release.build, forKey: Self.buildKey)
        } else {
            outputs = machine.handle(transition)
        }
        for output in outputs { perform(output, at: time, analytics, timeline) }
    }

    private func perform(_ output: LifecycleStateMachine.Output, at time: Date, _ analytics: AnalyticsClient, _ timeline: Timeline) {
        switch output {
        case .track(let name, let properties):
            timeline.process(Event(type: .track, timestamp: time, event: name, properties: properties))
        case .enterForeground:
            timeline.apply { ($0 as? any LifecycleAware)?.applicationDidEnterForeground() }
        case .enterBackground:
            // After `Application Backgrounded` went through the timeline: the flush covers it.
            // The system is asked to keep the app running until that upload has resolved.
            let end = source.beginFinishingWork(named: "MetaRouter background flush")
            timeline.apply { ($0 as? any LifecycleAware)?.applicationDidEnterBackground() }
            Task.detached {
                await analytics.flushAndWait()
                end()
            }
        case .terminate(let signal):
            timeline.apply { ($0 as? any LifecycleAware)?.applicationWillTerminate() }
            if let signal { finishAndReraise(signal, analytics) }
        }
    }

    /// After a signal the host left to us: deliver (or persist) within the deadline, then
    /// report back; once every instance watching the signal has, it ends the process as it
    /// would have.
    private func finishAndReraise(_ signal: Int32, _ analytics: AnalyticsClient) {
        let deadline = terminationDeadline
        Task.detached {
            await analytics.shutdown(timeout: deadline)
            ServerProcessLifecycleSource.drained(signal)
        }
    }
}

/// Carries the plugin, weakly, to the executor from the source's callbacks, which run on any
/// thread: they only pass it to `perform`, whose closure alone dereferences it.
private struct WeakPlugin: @unchecked Sendable {  // `plugin` is read only inside `perform` closures, on the executor
    weak var plugin: LifecyclePlugin?
    init(_ plugin: LifecyclePlugin) { self.plugin = plugin }
}
