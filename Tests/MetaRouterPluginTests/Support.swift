import Foundation
import MetaRouter
import MetaRouterAdvertisingID
import MetaRouterTesting

/// A client with the identity, context and advertising-ID plugins and a capturing
/// destination, on `store`.
func makePluginClient(
    store: any KeyValueStore = InMemoryKeyValueStore(),
    application: ApplicationInfo = ApplicationInfo(name: "Tests", version: "1.2.3", build: "45"),
    logs: RecordingLogSink = RecordingLogSink()
) -> (AnalyticsClient, CapturingDestination) {
    let capture = CapturingDestination()
    let configuration = Configuration(writeKey: "plugin-tests", logger: AnalyticsLogger(sink: logs), storage: store, application: application)
    let client = AnalyticsClient(
        configuration: configuration, plugins: [IdentityPlugin(), ContextPlugin(), AdvertisingIDPlugin(), capture])
    return (client, capture)
}

/// Options for a facade instance that never leaves the process: a capturing destination
/// instead of delivery, memory storage, a recording log.
func localOptions(_ writeKey: String, capture: CapturingDestination, logs: RecordingLogSink = RecordingLogSink()) -> InitOptions {
    var options = InitOptions(writeKey: writeKey, ingestionHost: "http://127.0.0.1:9")
    options.defaultPlugins = [.identity, .context, .advertisingId]
    options.keyValueStore = InMemoryKeyValueStore()
    options.maxDiskEvents = 0
    options.logSink = logs
    let handoff = UncheckedPlugin(capture)
    options.plugins = { [handoff.plugin] }
    return options
}

/// Lets a test hand one plugin instance to a `@Sendable` factory.
struct UncheckedPlugin: @unchecked Sendable {  // the test creates the plugin and gives it to exactly one client
    let plugin: any Plugin
    init(_ plugin: any Plugin) { self.plugin = plugin }
}
