import Foundation
import MetaRouter

extension Analytics {
    /// A real instance for a test, whose events end in `capture` instead of the network: the
    /// identity and context plugins run, identity is kept in memory, nothing is written to disk
    /// and nothing is sent. The class is final and conforms to nothing, so this — not a mock —
    /// is how code that takes an `Analytics` is tested.
    ///
    /// - Parameters:
    ///   - capture: Keeps every event that reaches the destinations.
    ///   - writeKey: A key of the test's own (one instance per key in a process; the default
    ///     is fresh each call).
    ///   - configure: Changes the options before the instance starts (a trait's option, a
    ///     plugin of your own in `plugins`, a log sink).
    /// - Returns: The instance; `await analytics.performAndWait { _ in }` before reading
    ///   `capture.events`, and `await analytics.shutdown()` at the end.
    public static func capturing(
        into capture: CapturingDestination, writeKey: String = "test-\(UUID().uuidString)", configure: (inout InitOptions) -> Void = { _ in }
    ) -> Analytics {
        var options = InitOptions(writeKey: writeKey, ingestionHost: "http://127.0.0.1:9")
        options.defaultPlugins = [.identity, .context]
        options.keyValueStore = InMemoryKeyValueStore()
        options.maxDiskEvents = 0
        configure(&options)
        let handoff = CaptureHandoff(capture)
        let own = options.plugins
        options.plugins = { (own?() ?? []) + [handoff.capture] }
        return instance(for: options)
    }
}

/// Hands the capturing destination to the instance's plugin factory.
private struct CaptureHandoff: @unchecked Sendable {  // the destination is given to exactly one instance, which alone calls it
    let capture: CapturingDestination
    init(_ capture: CapturingDestination) { self.capture = capture }
}
