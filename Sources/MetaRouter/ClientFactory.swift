import Foundation

/// Turns ``InitOptions`` into a running ``MetaRouterClient`` with the default plugins, or an
/// inert one when the options are invalid.
enum ClientFactory {
    static func make(_ options: InitOptions) -> MetaRouterClient {
        let logger = Logger(sink: options.logSink ?? StandardErrorLogSink(), minimumLevel: options.debug ? .debug : .info)
        let clock = options.clock ?? SystemClock()
        let errors = options.validationErrors()
        guard errors.isEmpty, let host = options.hostURL else {
            let reason = "invalid options: " + errors.joined(separator: "; ")
            let client = AnalyticsClient(configuration: Configuration(writeKey: options.writeKey, logger: logger, clock: clock))
            client.disable(reason: reason)
            return MetaRouterClient(client: client, options: options, configurationError: reason)
        }
        let directory = options.storageDirectory ?? StorageFiles.defaultDirectory(writeKey: options.writeKey)
        let storage = options.keyValueStore ?? defaultStore(directory: directory, logger: logger)
        let configuration = Configuration(
            writeKey: options.writeKey, logger: logger, clock: clock, storage: storage,
            storageDirectory: directory, application: options.application)
        var plugins = plugins(for: options, host: host, directory: directory)
        if options.trackLifecycleEvents {
            // Read before the identity plugin creates an anonymousId: an existing one means the
            // SDK ran here before (an upgrade from a version without lifecycle tracking).
            let hadIdentity = storage.string(forKey: IdentityKeys.anonymousId) != nil
            plugins.insert(lifecyclePlugin(options, hadIdentity: hadIdentity), at: 0)
        }
        let client = AnalyticsClient(configuration: configuration, plugins: plugins)
        return MetaRouterClient(client: client, options: options, configurationError: nil)
    }

    static func plugins(for options: InitOptions, host: URL, directory: URL) -> [any Plugin] {
        var plugins: [any Plugin] = []
        let defaults = options.defaultPlugins
        if defaults.contains(.identity) { plugins.append(IdentityPlugin()) }
        if defaults.contains(.context) { plugins.append(ContextPlugin()) }
        if defaults.contains(.advertisingId) { plugins.append(AdvertisingIDPlugin()) }
        if defaults.contains(.delivery) {
            var delivery = MetaRouterDestination.Options(ingestionHost: host)
            delivery.flushIntervalSeconds = TimeInterval(options.flushIntervalSeconds)
            delivery.maxQueueEvents = options.maxQueueEvents
            delivery.transport = options.transport
            delivery.onPermanentFailure = options.onPermanentFailure
            delivery.upload.requestTimeout = options.requestTimeoutSeconds
            if options.maxDiskEvents > 0 {
                var disk = DiskEventStore.Options(directory: directory.appendingPathComponent("events", isDirectory: true))
                disk.maxEvents = options.maxDiskEvents
                disk.maxBytes = options.maxDiskBytes
                delivery.disk = disk
            }
            plugins.append(MetaRouterDestination(options: delivery))
        }
        plugins += options.plugins?() ?? []
        return plugins
    }

    private static func lifecyclePlugin(_ options: InitOptions, hadIdentity: Bool) -> LifecyclePlugin {
        let bundle = Bundle.main.infoDictionary ?? [:]
        let release = LifecycleStateMachine.Release(
            version: options.application.version ?? bundle["CFBundleShortVersionString"] as? String ?? "unknown",
            build: options.application.build ?? bundle["CFBundleVersion"] as? String ?? "unknown")
        return LifecyclePlugin(source: options.lifecycleSource ?? defaultLifecycleSource(options), release: release, hadIdentity: hadIdentity)
    }

    private static func defaultLifecycleSource(_ options: InitOptions) -> any LifecycleSource {
        #if canImport(UIKit) && !os(watchOS)
        return UIKitLifecycleSource()
        #elseif canImport(AppKit)
        return AppKitLifecycleSource()
        #else
        return ServerProcessLifecycleSource(terminateOnSignals: options.terminateOnSignals)
        #endif
    }

    private static func defaultStore(directory: URL, logger: Logger) -> any KeyValueStore {
        #if canImport(Darwin)
        return UserDefaultsKeyValueStore()
        #else
        return FileKeyValueStore(file: directory.appendingPathComponent("identity.json"), logger: logger)
        #endif
    }
}
