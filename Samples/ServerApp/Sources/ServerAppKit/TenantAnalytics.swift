import Foundation
import Logging
import MetaRouter

/// One MetaRouter instance per tenant write key, created on first use.
public struct TenantAnalytics: Sendable {
    private let ingestionHost: URL
    private let storageRoot: URL
    private let logger: Logging.Logger

    /// Instances deliver to `ingestionHost` and keep their files under `storageRoot`.
    public init(ingestionHost: URL, storageRoot: URL, logger: Logging.Logger) {
        self.ingestionHost = ingestionHost
        self.storageRoot = storageRoot
        self.logger = logger
    }

    /// The instance for `writeKey`.
    public func instance(for writeKey: String) -> MetaRouterClient {
        var options = InitOptions(writeKey: writeKey, ingestionHost: ingestionHost, flushIntervalSeconds: 5)
        options.application = ApplicationInfo(name: "checkout-service", version: "1.0.0", build: "1")
        options.storageDirectory = storageRoot.appendingPathComponent(StorageFiles.namespace(for: writeKey))
        options.keyValueStore = InMemoryKeyValueStore()
        options.transport = AsyncHTTPClientTransport()
        options.logSink = SwiftLogSink(logger: logger)
        return MetaRouter.Analytics.instance(for: options)
    }
}
