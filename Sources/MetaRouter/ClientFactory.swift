import Foundation
import MetaRouterAdvertisingID
import MetaRouterPlatform

/// Turns ``InitOptions`` into the parts of a running ``Analytics`` instance with the default
/// plugins, or of an inert one when the options are invalid.
enum ClientFactory {
    /// What `prepare` produced: an inert instance for invalid options, or everything a live
    /// one needs to start, with no caller code run yet: starting it runs none on the calling
    /// thread (the plugin factory runs on the instance's executor).
    enum Prepared {
        case inert(Analytics.Parts)
        case ready(Ready)

        /// The instance: the inert one, or a new client whose executor builds and configures
        /// the plugins on its own thread — once `predecessor` opens, when given (the instance
        /// the write key had is still shutting down).
        func start(after predecessor: PredecessorGate? = nil) -> Analytics.Parts {
            switch self {
            case .inert(let client): return client
            case .ready(let ready):
                let options = ready.options
                let slots = ready.slots
                let makePlugins: @Sendable (AnalyticsClient) -> [any Plugin] = { client in
                    let plugins = ClientFactory.startingPlugins(ready, disabling: client)
                    slots.fill(from: plugins)
                    return plugins
                }
                // The configuration is copied only to add a gate: the copy's first use in a
                // process costs a runtime lookup of its fields' types.
                let client: AnalyticsClient
                if let predecessor {
                    var gated = ready.configuration
                    gated.startGate = gated.startGate.map { StartGates(first: predecessor, then: $0) } ?? predecessor
                    client = AnalyticsClient(configuration: gated, makePlugins: makePlugins)
                } else {
                    client = AnalyticsClient(configuration: ready.configuration, makePlugins: makePlugins)
                }
                client.companion = Analytics.Companion(slots: slots, options: options)
                let instance = Analytics.Parts(engine: client, options: options, configurationError: nil, pillarSlots: slots)
                #if Signals
                if var network = options.signals?.network {
                    // The SDK's own requests never become signals.
                    var own = [ready.host]
                    #if Rules
                    own.append(options.remoteRules?.url)
                    #endif
                    network.ownHosts.formUnion(own.compactMap { $0 }.compactMap { url in url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } })
                    NetworkSignals.send(to: client, options: network) { slots.found.signals?($0) }
                }
                #endif
                #if CrashCapture
                if options.captureCrashes {
                    // On the calling thread (usually the main one): its alternate signal stack
                    // is what lets a stack overflow there be reported.
                    CrashCapture.prepareCurrentThread()
                    Analytics(instance).deliverCrashReports()
                }
                #endif
                return instance
            }
        }
    }

    /// A live instance's checked options and what its plugins are built from. A class: passed
    /// by reference, it has none of the copy and destroy functions a struct of these fields
    /// would add to every binary (`Benchmarks/README.md`, "Binary size").
    final class Ready: Sendable {
        let configuration: Configuration
        let options: InitOptions
        /// The host's URL when it was parsed at the call (text that is not ``PlainHost``).
        private let parsedHost: URL?
        private let location: LazyFileURL
        /// Filled in on the executor, once the plugins are built.
        let slots: PillarSlots

        init(configuration: Configuration, options: InitOptions, parsedHost: URL?, location: LazyFileURL, slots: PillarSlots) {
            self.configuration = configuration
            self.options = options
            self.parsedHost = parsedHost
            self.location = location
            self.slots = slots
        }

        /// The storage directory, made a URL now (on the executor) when it was a path.
        var directory: URL { location.url }

        /// The ingestion host's URL: parsed at the call, or now (on the executor) from plain text.
        var host: URL? { parsedHost ?? URL(string: options.hostText) }
    }

    static func prepare(_ options: InitOptions) -> Prepared {
        let logger = AnalyticsLogger(
            sink: options.logSink ?? StandardErrorLogSink(), minimumLevel: options.debug ? .debug : .info,
            instance: AnalyticsLogger.instanceLabel(writeKey: options.writeKey))
        let clock = options.clock ?? SystemClock()
        // Plain host text is checked without Foundation's URL parser, and parsed on the executor.
        let text = options.hostText
        let plain = PlainHost(text)
        let parsed = plain == nil ? options.hostURL : nil
        let host = plain.map { ($0.scheme, $0.host) } ?? parsed.map { ($0.scheme?.lowercased() ?? "", $0.host ?? "") }
        let errors = options.validationErrors(host: host)
        guard errors.isEmpty, host != nil else {
            let reason = "invalid options: " + errors.joined(separator: "; ")
            let client = AnalyticsClient(configuration: Configuration(writeKey: options.writeKey, logger: logger, clock: clock))
            client.disable(reason: reason)
            return .inert(Analytics.Parts(engine: client, options: options, configurationError: reason, pillarSlots: PillarSlots()))
        }
        // The default directory and the identity file are kept as paths, made URLs on the
        // executor: an app's first `initialize` makes no URL (the first costs about 0.15 ms).
        let defaultPath = options.storageDirectory == nil ? StorageFiles.defaultDirectoryPath(writeKey: options.writeKey) : nil
        let directory = options.storageDirectory.map(LazyFileURL.init) ?? LazyFileURL(path: defaultPath ?? "", isDirectory: true)
        let storage = options.keyValueStore ?? defaultStore(directoryPath: defaultPath ?? directory.url.path, logger: logger)
        var configuration = Configuration(
            writeKey: options.writeKey, logger: logger, clock: clock, storage: storage, application: options.application)
        configuration.storageLocation = directory
        configuration.startGate = protectedDataGate()
        configuration.maxPendingEvents = options.maxPendingEvents
        configuration.onInvalidInput = options.onInvalidInput
        #if Entitlements
        let slots = PillarSlots(entitlementCache: options.entitlements != nil ? EntitlementCache() : nil)
        #else
        let slots = PillarSlots()
        #endif
        return .ready(Ready(configuration: configuration, options: options, parsedHost: parsed, location: directory, slots: slots))
    }

    /// The plugins a live instance starts with, in timeline order; run on its executor. None,
    /// and `client` disabled, if the host's URL cannot be made (``PlainHostTests`` hold that it
    /// always can).
    static func startingPlugins(_ ready: Ready, disabling client: AnalyticsClient) -> [any Plugin] {
        guard let host = ready.host else {
            client.disable(reason: "invalid options: ingestionHost \"\(ready.options.ingestionHost)\" is not an http(s) URL with a host")
            return []
        }
        let options = ready.options, directory = ready.directory
        let storage = ready.configuration.storage, logger = ready.configuration.logger
        var plugins = plugins(for: options, host: host, directory: directory, slots: ready.slots)
        #if Entitlements
        if let cache = ready.slots.entitlementCache, let settings = options.entitlements {
            // After identity (its userId is loaded when the plugin reads it), before delivery.
            let source = settings.source ?? entitlementSource(options, host: host)
            let plugin = EntitlementsPlugin(
                source: source, refreshInterval: settings.refreshIntervalSeconds, cache: cache,
                store: EntitlementStore(directory: directory.appendingPathComponent("entitlements", isDirectory: true))
            ) { [slots = ready.slots] timeline in
                let identity = slots.found.identity?(timeline)
                return (identity?.userId, identity?.anonymousId)
            }
            let afterIdentity = plugins.firstIndex { $0 is IdentityPlugin }.map { $0 + 1 } ?? plugins.count
            plugins.insert(plugin, at: afterIdentity)
        }
        #endif
        if options.trackLifecycleEvents {
            // First, so it joins (on the executor) before the identity plugin creates an
            // anonymousId: an existing one means the SDK ran here before (an upgrade from a
            // version without lifecycle tracking).
            let hadIdentity = { storage.string(forKey: IdentityKeys.anonymousId) != nil }
            plugins.insert(lifecyclePlugin(options, logger: logger, hadIdentity: hadIdentity), at: 0)
        }
        return plugins
    }

    #if Entitlements
    /// The ingestion host's entitlement API, over the options' transport, or else over a
    /// standard transport of its own per request on Linux, where one sends a request at a time
    /// (so a slow answer for a previous user never holds up the fetch for the user in force),
    /// and one for all of them elsewhere (URLSession sends them side by side).
    static func entitlementSource(_ options: InitOptions, host: URL) -> HTTPEntitlementSource {
        if let transport = options.transport { return HTTPEntitlementSource(host: host, writeKey: options.writeKey, transport: transport) }
        let limit = EntitlementStore.maximumFileBytes
        let shared = HTTPTransports.standard(timeout: 30, maxResponseBytes: limit)
        #if os(Linux)
        if shared is CurlTransport {
            return HTTPEntitlementSource(host: host, writeKey: options.writeKey) { CurlTransport(maxResponseBytes: limit) ?? shared }
        }
        #endif
        return HTTPEntitlementSource(host: host, writeKey: options.writeKey, transport: shared)
    }
    #endif

    /// `slots`: the instance's handles, filled in once these plugins are built; the plugins that
    /// read another (entitlements, signals: the identity) reach it through them.
    static func plugins(for options: InitOptions, host: URL, directory: URL, slots: PillarSlots) -> [any Plugin] {
        // In this order, ahead of identity, context and every destination: the consent gate (a
        // call it drops is seen by no other plugin), super properties, PII scrubbing, then the
        // tracking plan, so the plan checks what would be sent. Scrubbing and the plan join only
        // when asked for, here or later (`setScrubPII`, `setTrackingPlan` add them in place):
        // a plugin that would pass every event on unchanged still costs each event a call.
        var plugins: [any Plugin] = []
        #if Privacy
        plugins += [ConsentPlugin(initial: options.initialConsent), SuperPropertiesPlugin()]
        // With debug logging the scrubber is there even when off: it names sensitive-looking keys.
        if options.scrubPII || options.debug {
            plugins.append(PIIScrubPlugin(enabled: options.scrubPII, options: options.piiScrubbing))
        }
        #endif
        #if TrackingPlan
        if let plan = options.trackingPlan {
            plugins.append(TrackingPlanPlugin(plan: plan, mode: options.trackingPlanMode, onViolation: options.onPlanViolation))
        }
        #endif
        let defaults = options.defaultPlugins
        if defaults.contains(.identity) { plugins.append(IdentityPlugin(mode: options.identityMode)) }
        if defaults.contains(.context) { plugins.append(ContextPlugin()) }
        #if ErrorCapture
        plugins.append(BreadcrumbsPlugin(capacity: options.breadcrumbCapacity))
        plugins.append(ErrorCapturePlugin(options: options.errorCapture))
        #endif
        #if CrashCapture
        if options.captureCrashes {
            plugins.append(CrashReportPlugin(directory: directory.appendingPathComponent("crash", isDirectory: true), breadcrumbCapacity: options.breadcrumbCapacity))
        }
        #endif
        // Servers get no automatic sessions; `startSession()` adds the plugin when asked.
        if defaults.contains(.sessions), options.identityMode == .device, options.sessions.automatic {
            plugins.append(SessionPlugin(options: options.sessions))
        }
        if defaults.contains(.advertisingId) { plugins.append(AdvertisingIDPlugin()) }
        #if Rules
        if let remote = options.remoteRules {
            // After identity and context, so the rules see what will be sent.
            plugins.append(RemoteRulesPlugin(
                options: remote, directory: directory.appendingPathComponent("rules", isDirectory: true),
                transport: options.transport ?? HTTPTransports.standard(timeout: 30, maxResponseBytes: remote.maxBytes)))
        }
        #endif
        #if Signals
        if let signals = options.signals {
            plugins.append(SignalsPlugin(configuration: signals) { slots.found.identity?($0).anonymousId })
        }
        #endif
        if defaults.contains(.delivery) {
            var delivery = MetaRouterDestination.Options(ingestionHost: host)
            delivery.upload.flushIntervalSeconds = TimeInterval(options.flushIntervalSeconds)
            delivery.upload.maxQueueEvents = options.maxQueueEvents
            delivery.upload.flushAt = options.flushAt
            delivery.upload.maxBatchSize = options.maxBatchSize
            delivery.transport = options.transport
            delivery.onPermanentFailure = options.onPermanentFailure
            delivery.upload.requestTimeout = options.requestTimeoutSeconds
            delivery.upload.gzip = options.gzipRequests
            if options.maxDiskEvents > 0 {
                var disk = DiskLogOptions(directory: directory.appendingPathComponent("events", isDirectory: true))
                disk.maxEvents = options.maxDiskEvents
                disk.maxBytes = options.maxDiskBytes
                disk.maxAge = options.maxDiskAgeSeconds
                delivery.disk = disk
            }
            plugins.append(MetaRouterDestination.make(options: delivery))
        }
        plugins += options.plugins?() ?? []
        return plugins
    }

    private static func lifecyclePlugin(_ options: InitOptions, logger: AnalyticsLogger, hadIdentity: @escaping () -> Bool) -> LifecyclePlugin {
        let bundle = Bundle.main.infoDictionary ?? [:]
        let release = LifecycleStateMachine.Release(
            version: options.application.version ?? bundle["CFBundleShortVersionString"] as? String ?? "unknown",
            build: options.application.build ?? bundle["CFBundleVersion"] as? String ?? "unknown")
        return LifecyclePlugin(
            source: options.lifecycleSource.map { $0 as any LifecycleSource } ?? defaultLifecycleSource(options, logger: logger), release: release, hadIdentity: hadIdentity)
    }

    private static func defaultLifecycleSource(_ options: InitOptions, logger: AnalyticsLogger) -> any LifecycleSource {
        #if os(watchOS)
        // No signal handlers on a watch, and no built-in WatchKit source: the app drives one.
        logger.warning("sdk.lifecycle_source_missing: trackLifecycleEvents on watchOS needs InitOptions.lifecycleSource (a ManualLifecycleSource the app drives); no lifecycle events until then")
        return ManualLifecycleSource()
        #elseif canImport(UIKit)
        return UIKitLifecycleSource()
        #elseif canImport(AppKit)
        return AppKitLifecycleSource()
        #else
        return ServerProcessLifecycleSource(terminateOnSignals: options.terminateOnSignals)
        #endif
    }

    /// iOS, tvOS, visionOS, Catalyst: wait for protected data before touching the store or the
    /// event log (an app may be launched before the first unlock). Elsewhere nothing to wait for.
    private static func protectedDataGate() -> (any StartGate)? {
        #if canImport(UIKit) && !os(watchOS)
        return UIKitProtectedDataGate()
        #else
        return nil
        #endif
    }

    private static func defaultStore(directoryPath: @autoclosure () -> String, logger: AnalyticsLogger) -> any KeyValueStore {
        #if canImport(Darwin)
        return UserDefaultsKeyValueStore()
        #else
        return FileKeyValueStore(path: directoryPath() + "/identity.json", logger: logger)
        #endif
    }
}
