/// Where a plugin sits in the timeline. Stages run in this order: `before`, `enrichment`,
/// every `destination` (each with its own sub-timeline), `after`. `utility` plugins see no
/// events; they only receive configuration, reset, flush and shutdown.
public enum PluginType: Sendable, Hashable, CaseIterable {
    /// First: validation, consent gates, dropping events early.
    case before
    /// Adds or changes data: identity, context, renames.
    case enrichment
    /// Delivers events somewhere; each destination gets its own copy of the event.
    case destination
    /// Sees every event after the destinations ran: logging, metrics.
    case after
    /// Sees no events.
    case utility
}

/// A step of the pipeline.
///
/// A plugin is an ordinary class: the plugins of one `AnalyticsClient` are invoked serially on
/// its executor, never concurrently, so a plugin needs no locks for state that only its hooks
/// touch. Every hook has a default, so a plugin implements only what it needs.
public protocol Plugin: AnyObject {
    /// The stage this plugin runs in.
    var type: PluginType { get }
    /// Called once, on the executor, when the plugin joins a client's timeline.
    ///
    /// - Parameter analytics: The client whose timeline the plugin joined.
    func configure(analytics: AnalyticsClient)
    /// Receives an event; returns it (changed or not) to pass it on, or `nil` to drop it.
    /// The event is handed over (`consuming`): in the `before`, `enrichment` and `after`
    /// stages nobody else holds it, so a plugin that declares the parameter `consuming` too and
    /// edits `event` itself changes it in place (destinations share the enriched event, and
    /// an edit there copies). One that declares a plain parameter still works, and copies the
    /// event's fields on its first edit.
    ///
    /// - Parameter event: The event, handed over.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func execute(event: consuming Event) -> Event?
    /// The client was reset (logout): forget per-user state.
    func reset()
    /// The host asked to deliver what is queued now.
    func flush()
    /// The client is shutting down: persist what must survive and stop timers.
    func shutdown()
}

extension Plugin {
    /// Does nothing.
    ///
    /// - Parameter analytics: The client whose timeline the plugin joined.
    public func configure(analytics: AnalyticsClient) {}
    /// Passes the event on unchanged.
    ///
    /// - Parameter event: The event, handed over.
    /// - Returns: The event to pass on, or `nil` to drop it.
    public func execute(event: consuming Event) -> Event? { event }
    /// Does nothing.
    public func reset() {}
    /// Does nothing.
    public func flush() {}
    /// Does nothing.
    public func shutdown() {}
}

/// A built-in plugin with one hook per event type. The default `execute(event:)` dispatches to
/// them; each returns its event unchanged unless overridden. Plugins of an app switch on
/// `event.type` in `execute(event:)` instead.
package protocol EventPlugin: Plugin {
    /// A track event.
    ///
    /// - Parameter event: A track event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func track(event: consuming Event) -> Event?
    /// An identify event.
    ///
    /// - Parameter event: An identify event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func identify(event: consuming Event) -> Event?
    /// A screen event.
    ///
    /// - Parameter event: A screen event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func screen(event: consuming Event) -> Event?
    /// A page event.
    ///
    /// - Parameter event: A page event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func page(event: consuming Event) -> Event?
    /// A group event.
    ///
    /// - Parameter event: A group event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func group(event: consuming Event) -> Event?
    /// An alias event.
    ///
    /// - Parameter event: An alias event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    func alias(event: consuming Event) -> Event?
}

extension EventPlugin {
    /// Calls the hook for the event's type.
    ///
    /// - Parameter event: The event.
    /// - Returns: What the hook for its type returned.
    package func execute(event: consuming Event) -> Event? {
        switch event.type {
        case .track: return track(event: event)
        case .identify: return identify(event: event)
        case .screen: return screen(event: event)
        case .page: return page(event: event)
        case .group: return group(event: event)
        case .alias: return alias(event: event)
        }
    }

    /// Passes the event on.
    ///
    /// - Parameter event: A track event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    package func track(event: consuming Event) -> Event? { event }
    /// Passes the event on.
    ///
    /// - Parameter event: An identify event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    package func identify(event: consuming Event) -> Event? { event }
    /// Passes the event on.
    ///
    /// - Parameter event: A screen event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    package func screen(event: consuming Event) -> Event? { event }
    /// Passes the event on.
    ///
    /// - Parameter event: A page event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    package func page(event: consuming Event) -> Event? { event }
    /// Passes the event on.
    ///
    /// - Parameter event: A group event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    package func group(event: consuming Event) -> Event? { event }
    /// Passes the event on.
    ///
    /// - Parameter event: An alias event.
    /// - Returns: The event to pass on, or `nil` to drop it.
    package func alias(event: consuming Event) -> Event? { event }
}

/// A plugin that delivers events somewhere, with a sub-timeline of `before` / `enrichment` /
/// `after` plugins that apply to this destination only. Its own `execute(event:)` does the
/// delivery.
public protocol DestinationPlugin: Plugin {
    /// A stable name, e.g. `"MetaRouter"`; rules and settings address the destination by it.
    var key: String { get }
    /// This destination's own plugins. Create it once: `let timeline = Timeline()`.
    var timeline: Timeline { get }
}

extension DestinationPlugin {
    /// Destinations always sit in the destination stage.
    public var type: PluginType { .destination }

    /// Adds a plugin to this destination's sub-timeline at `position` within its stage (the
    /// built-ins' and tests' spelling of `timeline.add(_:at:)`).
    package func add(plugin: any Plugin, at position: PluginPosition = .last) {
        timeline.add(plugin, at: position)
    }

    /// Removes a plugin from this destination's sub-timeline.
    package func remove(plugin: any Plugin) {
        timeline.remove(plugin)
    }

    /// Runs the sub-timeline's `before` and `enrichment` plugins, then this destination, then
    /// its `after` plugins. Returns what the destination returned.
    package func process(event: consuming Event) -> Event? {
        guard let prepared = timeline.runBeforeDestinations(event), let delivered = execute(event: prepared) else { return nil }
        return timeline.runAfterDestinations(delivered)
    }
}

/// A plugin whose flush or shutdown completes later (e.g. after a network round trip).
/// `AnalyticsClient.flushAndWait()` and `shutdown()` wait for these.
public protocol CompletingPlugin: Plugin {
    /// Flushes, then calls `completion` once the attempt has resolved.
    ///
    /// - Parameter completion: Called once the flush has resolved.
    func flush(completion: @escaping @Sendable () -> Void)
    /// Shuts down, then calls `completion` once everything is delivered or safely stored.
    ///
    /// - Parameter completion: Called once what the plugin holds is delivered or persisted.
    func shutdown(completion: @escaping @Sendable () -> Void)
}

/// A plugin that holds accepted events and can tell, once shut down, how many of them it
/// could neither deliver nor persist: the client's `shutdown` then reports that it lost events.
package protocol DurabilityReporting: CompletingPlugin {
    /// Shuts down like ``CompletingPlugin/shutdown(completion:)``, then calls `completion` with
    /// the number of accepted events neither delivered nor safely stored.
    func shutdown(reportingUndurable completion: @escaping @Sendable (Int) -> Void)
    /// Stops at once, on the executor, when a shutdown's deadline passed before
    /// ``shutdown(reportingUndurable:)`` completed: nothing is sent again, what is stored is
    /// released (a disk log's lock, for the next instance to open), and an answer that arrives
    /// later changes nothing. Returns the number of accepted events neither delivered nor
    /// safely stored.
    func closeNow() -> Int
}
