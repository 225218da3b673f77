import Dispatch
import Foundation

/// Plugins joining and leaving the timeline, in order with the calls.
extension AnalyticsClient {
    /// Adds `plugin` to its stage of the timeline at `position`, in order with the calls
    /// submitted before: events submitted earlier do not see it, later ones do.
    ///
    /// - Parameters:
    ///   - plugin: The plugin; from now on only the executor calls it.
    ///   - position: Where in its stage it goes.
    /// - Returns: `plugin`.
    @discardableResult
    package func add(plugin: any Plugin, at position: PluginPosition = .last) -> any Plugin {
        let handoff = PluginHandoff(plugin)
        status.withLock { $0.plugins.append(handoff) }
        perform { [self] timeline in
            // After a shutdown it is not added: a destination would open the next instance's log.
            guard dropsCall("add(plugin:) call", on: timeline) else { return timeline.add(handoff.plugin, at: position) }
            status.withLock { $0.plugins.removeAll { $0.plugin === handoff.plugin } }
        }
        return plugin
    }

    /// Adds `plugin` to the sub-timeline of the destination whose key is `destinationKey`.
    ///
    /// - Parameters:
    ///   - plugin: The plugin.
    ///   - destinationKey: The destination's key.
    ///   - position: Where in the destination's timeline it goes.
    package func add(plugin: any Plugin, toDestination destinationKey: String, at position: PluginPosition = .last) {
        let handoff = PluginHandoff(plugin)
        performCall("add(plugin:toDestination:) call") { [logger] timeline in
            guard let destination = timeline.destination(key: destinationKey) else {
                logger.warning("sdk.destination_missing: no destination \"\(destinationKey)\" to add \(type(of: handoff.plugin)) to")
                return
            }
            destination.timeline.add(handoff.plugin, at: position)
        }
    }

    /// Removes `plugin` from the timeline (it is shut down).
    ///
    /// - Parameter plugin: A plugin added before; it is shut down.
    package func remove(plugin: any Plugin) {
        let handoff = PluginHandoff(plugin)
        status.withLock { $0.plugins.removeAll { $0.plugin === plugin } }
        perform { $0.remove(handoff.plugin) }
    }

    /// The first plugin of type `T` added to this client's timeline (not sub-timelines), for
    /// tests. Callers find a plugin on the executor instead, where it may be used:
    /// `perform { $0.find(T.self) }`.
    package func find<T: Plugin>(pluginType: T.Type) -> T? {
        status.withLock { status in status.plugins.lazy.compactMap { $0.plugin as? T }.first }
    }
}
