import Foundation

/// The namespace of the seed API: `MetaRouter.Analytics.initialize(with:)`,
/// `MetaRouter.Analytics.shared`.
public enum MetaRouter {
    /// Creating and finding analytics instances.
    public enum Analytics {
        /// Held across `fork()`, so a child, whose calls pass through it, never inherits it held
        /// (``ForkGuard``).
        private static let registry: Locked<[String: MetaRouterClient]> = {
            let registry = Locked<[String: MetaRouterClient]>([:])
            ForkGuard.holdAcrossFork(HeldAcrossFork(registry))
            return registry
        }()
        private static let proxy: AnalyticsProxy = {
            let proxy = AnalyticsProxy()
            proxy.holdLockAcrossFork()
            return proxy
        }()

        /// The first initialized instance, usable from anywhere — even before
        /// `initialize(with:)`: calls made earlier are kept in order (50,000 at most; a call
        /// beyond that is dropped at the call and logged, `sdk.ingress_full`) and replayed once
        /// an instance is bound.
        public static var shared: AnalyticsInterface { proxy }

        /// Returns the instance for `options.writeKey`, creating and starting it if needed. It
        /// returns at once; calls made before it is ready wait, in order. A second call with
        /// the same write key returns the existing instance (its options are kept). The first
        /// instance initialized becomes `shared`.
        ///
        /// Invalid options (empty write key, a host that is not http(s), `maxQueueEvents <= 0`,
        /// negative `maxDiskEvents`, `flushIntervalSeconds <= 0`) are logged and give an inert
        /// instance that drops every call and reports the error in `getDebugInfo()`.
        @discardableResult
        public static func initialize(with options: InitOptions) -> AnalyticsInterface {
            let client = concreteInstance(for: options)
            proxy.bind(client)
            return client
        }

        /// The instance for `options.writeKey`, created if needed, like
        /// ``initialize(with:)`` but without binding `shared` — for servers that run one
        /// instance per tenant.
        ///
        /// No caller code runs under the registry's lock: the plugin factory and a custom store
        /// run first, outside it, so a factory may itself ask for an instance.
        public static func instance(for options: InitOptions) -> any AnalyticsInterface {
            concreteInstance(for: options)
        }

        /// ``instance(for:)`` as the concrete type the built-ins and the tests work with.
        package static func concreteInstance(for options: InitOptions) -> MetaRouterClient {
            // A known key is a lock and a lookup (and a few comparisons): servers ask per request.
            if let existing = registry.withLock({ $0[options.writeKey] }) {
                existing.noteRequest(with: options)
                return existing
            }
            let prepared = ClientFactory.prepare(options)
            let (client, created) = registry.withLock { clients -> (MetaRouterClient, Bool) in
                if let existing = clients[options.writeKey] { return (existing, false) }
                let made = prepared.start()
                if made.configurationError == nil { clients[options.writeKey] = made }
                return (made, true)
            }
            if created, client.configurationError == nil {
                client.client.logger.debug("sdk.configured: instance for write key \(DebugInfo.mask(options.writeKey)) created")
            }
            if !created { client.noteRequest(with: options) }
            return client
        }

        /// Removes a shut-down instance from the registry (and from `shared`), so the next
        /// request for its write key creates a live one.
        static func forget(_ client: MetaRouterClient) {
            registry.withLock { clients in
                if clients[client.options.writeKey] === client { clients[client.options.writeKey] = nil }
            }
            if proxy.target === client { proxy.unbind() }
        }

        /// Initializes and waits until the instance is ready (plugins configured, identity
        /// loaded).
        public static func initializeAndWait(with options: InitOptions) async -> AnalyticsInterface {
            let client = concreteInstance(for: options)
            proxy.bind(client)
            await client.client.settle()
            return client
        }

        /// Resets the shared instance (identity, advertising id, queue) and waits until the
        /// reset has been applied. Does nothing when no instance is bound.
        public static func resetAndWait() async {
            await proxy.target?.resetAndWait()
        }

        /// Shuts down and forgets every instance, and unbinds `shared`: the next
        /// `initialize(with:)` starts afresh. For tests and for servers that stop. The
        /// instances shut down side by side, each delivering what it can within `timeout`
        /// seconds (10 by default); what is left stays in their logs for the next start.
        /// Returns whether every instance finished in time with every accepted event delivered
        /// or on disk. A server gives it a few seconds less than its orchestrator's grace
        /// period (Kubernetes: 30 s).
        @discardableResult
        public static func shutdownAll(timeout: TimeInterval = Defaults.shutdownTimeoutSeconds) async -> Bool {
            let clients = registry.withLock { clients -> [MetaRouterClient] in
                defer { clients = [:] }
                return Array(clients.values)
            }
            let bound = proxy.target
            proxy.unbind()
            var all = clients
            if let bound, !clients.contains(where: { $0 === bound }) { all.append(bound) }
            return await withTaskGroup(of: Bool.self) { group in
                for client in all { group.addTask { await client.shutdown(timeout: timeout) } }
                return await group.reduce(true) { $0 && $1 }
            }
        }

        /// The shared instance.
        @available(*, deprecated, renamed: "shared", message: "Use MetaRouter.Analytics.shared")
        public static func client() -> AnalyticsInterface { proxy }
    }
}
