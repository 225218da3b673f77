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
        let configuration = Configuration(
            writeKey: options.writeKey, logger: logger, clock: clock,
            storage: options.keyValueStore ?? defaultStore(directory: directory, logger: logger),
            storageDirectory: directory, application: options.application)
        let client = AnalyticsClient(configuration: configuration, plugins: plugins(for: options, host: host, directory: directory))
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

    private static func defaultStore(directory: URL, logger: Logger) -> any KeyValueStore {
        #if canImport(Darwin)
        return UserDefaultsKeyValueStore()
        #else
        return FileKeyValueStore(file: directory.appendingPathComponent("identity.json"), logger: logger)
        #endif
    }
}
