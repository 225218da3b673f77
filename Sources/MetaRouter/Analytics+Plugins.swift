import Foundation

/// The plugin host: adding and removing plugins and running work where they live. On
/// ``Analytics/shared`` before an instance is bound, each call is kept in call order and runs
/// on that instance once it is.
extension Analytics {
    /// Adds `plugin` to its stage of the timeline at `position`, in order with the calls made
    /// before: events tracked earlier do not see it, later ones do.
    ///
    /// - Parameters:
    ///   - plugin: The plugin; from now on only the instance's executor calls it.
    ///   - position: Where in its stage it goes (last by default).
    public func add(plugin: any Plugin, at position: PluginPosition = .last) {
        engine.add(plugin: plugin, at: position)
    }

    /// Adds `plugin` to the sub-timeline of the destination whose key is `destinationKey`
    /// (a warning is logged when there is none).
    ///
    /// - Parameters:
    ///   - plugin: The plugin; it sees only the events that reach that destination.
    ///   - destinationKey: The destination's ``DestinationPlugin/key``.
    ///   - position: Where in the destination's own timeline it goes (last by default).
    public func add(plugin: any Plugin, toDestination destinationKey: String, at position: PluginPosition = .last) {
        engine.add(plugin: plugin, toDestination: destinationKey, at: position)
    }

    /// Removes `plugin` from the timeline, in order with the calls made before; it is shut
    /// down.
    ///
    /// - Parameter plugin: A plugin added before.
    public func remove(plugin: any Plugin) {
        engine.remove(plugin: plugin)
    }

    /// Runs `work` on the instance's executor, in order with the calls made before: the one
    /// place where plugins may be found (`timeline.find(MyPlugin.self)`) and used.
    ///
    /// - Parameter work: Gets the timeline, which must not leave the closure.
    public func perform(_ work: @escaping @Sendable (Timeline) -> Void) {
        engine.perform(work)
    }

    /// Runs `read` on the instance's executor after every call made before, and returns what
    /// it returns.
    ///
    /// - Parameter read: Gets the timeline, which must not leave the closure.
    /// - Returns: `read`'s result; `nil` in a `fork()` child, where the executor does not run.
    public func performAndWait<Value: Sendable>(_ read: @escaping @Sendable (Timeline) -> Value) async -> Value? {
        await onExecutor(read)
    }
}
