/// The ordered plugins of one client (or of one destination's sub-timeline), by stage.
///
/// A timeline belongs to its client's executor: it is read and changed only there.
public final class Timeline {
    private var stages: [PluginType: [any Plugin]] = [:] {
        didSet { cacheRunOrder() }
    }
    /// What an event meets, resolved once per change rather than per event: the `before` and
    /// `enrichment` plugins in order, each destination-stage plugin (cast once), the `after` ones.
    private var early: [any Plugin] = []
    private var destinations: [Destination] = []
    private var late: [any Plugin] = []
    /// The consent gate and the PII scrubber among this timeline's own plugins, resolved once
    /// per change rather than per call (``collectsAnalytics``, ``scrubbedForExport(_:)``).
    private(set) var privacyGate: (any PrivacyGate)?
    private(set) var scrubbing: (any PrivacyScrubbing)?
    /// The destinations that act on a change of consent categories (``ConsentCategoriesListener``),
    /// resolved per change like the gate.
    private(set) var consentListeners: [any ConsentCategoriesListener] = []
    private weak var analytics: AnalyticsClient?

    private enum Destination {
        case destination(any DestinationPlugin)
        case plain(any Plugin)
    }

    /// An empty timeline.
    public init() {}

    /// The client this timeline is attached to (on its executor).
    package var client: AnalyticsClient? { analytics }

    /// Every plugin, in stage order and insertion order within a stage.
    package var plugins: [any Plugin] {
        PluginType.allCases.flatMap { stages[$0] ?? [] }
    }

    /// Adds `plugin` to its stage at `position` (by default after the plugins already there)
    /// and configures it if the timeline is attached. Call it on the executor once attached.
    ///
    /// - Parameters:
    ///   - plugin: The plugin.
    ///   - position: Where in its stage it goes.
    public func add(_ plugin: any Plugin, at position: PluginPosition = .last) {
        analytics?.assertOnExecutor()
        var list = stages[plugin.type] ?? []
        list.insert(plugin, at: position.index(in: list))
        stages[plugin.type] = list
        if let analytics { join(plugin, analytics) }
    }

    /// Removes `plugin` (by identity); it is shut down first. Call it on the executor once
    /// attached.
    ///
    /// - Parameter plugin: A plugin of this timeline; it is shut down.
    public func remove(_ plugin: any Plugin) {
        analytics?.assertOnExecutor()
        guard var list = stages[plugin.type], let index = list.firstIndex(where: { $0 === plugin }) else { return }
        list.remove(at: index)
        stages[plugin.type] = list
        plugin.shutdown()
    }

    /// The first plugin of type `T`, searching destinations' sub-timelines too.
    ///
    /// - Parameter pluginType: The plugin's type.
    /// - Returns: The first plugin of that type, if any.
    public func find<T>(_ pluginType: T.Type) -> T? {
        for plugin in plugins {
            if let match = plugin as? T { return match }
            if let destination = plugin as? any DestinationPlugin, let match = destination.timeline.find(T.self) {
                return match
            }
        }
        return nil
    }

    /// Every plugin of type `T`, including those in destinations' sub-timelines.
    package func findAll<T>(_ pluginType: T.Type) -> [T] {
        plugins.flatMap { plugin -> [T] in
            var found: [T] = (plugin as? T).map { [$0] } ?? []
            if let destination = plugin as? any DestinationPlugin {
                found += destination.timeline.findAll(T.self)
            }
            return found
        }
    }

    /// The destination whose key is `key`.
    package func destination(key: String) -> (any DestinationPlugin)? {
        stages[.destination]?.lazy.compactMap { $0 as? any DestinationPlugin }.first { $0.key == key }
    }

    /// Runs `event` through the whole timeline: before → enrichment → each destination → after.
    /// Returns the event as the `after` stage left it, or `nil` when it was dropped before the
    /// destinations or by an `after` plugin.
    @discardableResult
    package func process(_ event: consuming Event) -> Event? {
        guard let enriched = runBeforeDestinations(consume event) else { return nil }
        for entry in destinations {
            switch entry {
            case .destination(let destination): _ = destination.process(event: enriched)
            case .plain(let plugin): _ = plugin.execute(event: enriched)
            }
        }
        return runAfterDestinations(enriched)
    }

    /// Runs `event` through the `before` and `enrichment` plugins, stopping when one drops it.
    package func runBeforeDestinations(_ event: consuming Event) -> Event? {
        Self.run(early, event)
    }

    /// Runs `event` through the `after` plugins, stopping when one drops it.
    package func runAfterDestinations(_ event: consuming Event) -> Event? {
        Self.run(late, event)
    }

    /// Hands the event from plugin to plugin (`consume`: each receives the only reference, so
    /// an edit happens in place instead of copying the event's fields).
    private static func run(_ plugins: [any Plugin], _ event: consuming Event) -> Event? {
        for plugin in plugins {
            guard let next = plugin.execute(event: consume event) else { return nil }
            event = next
        }
        return event
    }

    private func cacheRunOrder() {
        early = (stages[.before] ?? []) + (stages[.enrichment] ?? [])
        destinations = (stages[.destination] ?? []).map { plugin in
            (plugin as? any DestinationPlugin).map(Destination.destination) ?? .plain(plugin)
        }
        late = stages[.after] ?? []
        let all = plugins
        privacyGate = all.lazy.compactMap { $0 as? any PrivacyGate }.first
        scrubbing = all.lazy.compactMap { $0 as? any PrivacyScrubbing }.first
        consentListeners = all.compactMap { $0 as? any ConsentCategoriesListener }
    }

    /// Runs `event` through the plugins of `stageList`, in order, stopping when one drops it.
    package func run(stages stageList: [PluginType], _ event: consuming Event) -> Event? {
        for stage in stageList {
            guard let next = Self.run(stages[stage] ?? [], consume event) else { return nil }
            event = next
        }
        return event
    }

    /// Calls `body` on every plugin, destinations' sub-timelines included.
    package func apply(_ body: (any Plugin) -> Void) {
        for plugin in plugins {
            body(plugin)
            if let destination = plugin as? any DestinationPlugin {
                destination.timeline.apply(body)
            }
        }
    }

    /// Connects the timeline to its client and configures the plugins already in it.
    func attach(to analytics: AnalyticsClient) {
        self.analytics = analytics
        for plugin in plugins { join(plugin, analytics) }
    }

    private func join(_ plugin: any Plugin, _ analytics: AnalyticsClient) {
        plugin.configure(analytics: analytics)
        if let destination = plugin as? any DestinationPlugin {
            destination.timeline.attach(to: analytics)
        }
    }
}
