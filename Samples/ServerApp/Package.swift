// swift-tools-version:6.0
import PackageDescription

/// A Hummingbird web service that imports MetaRouter: one analytics instance per tenant write
/// key, request-scoped identity, an AsyncHTTPClient transport, swift-log, and a
/// swift-service-lifecycle integration so SIGTERM drains the queue before exit. `VaporApp` is
/// the same service in Vapor, in one short file: `request.analytics` with the request's
/// identity, logs in swift-log, and a drain when Vapor shuts down (SIGTERM, SIGINT).
let package = Package(
    name: "ServerApp",
    // macOS 15, as the Integrations products ask (`Synchronization.Mutex`).
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "MetaRouter", path: "../.."),
        .package(name: "MetaRouterCLI", path: "../CLI"),
        .package(name: "MetaRouterIntegrations", path: "../../Integrations"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .target(
            name: "ServerAppKit",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "MetaRouterLogging", package: "MetaRouterIntegrations"),
                .product(name: "MetaRouterServiceLifecycle", package: "MetaRouterIntegrations"),
                .product(name: "MetaRouterAsyncHTTPClient", package: "MetaRouterIntegrations"),
                .product(name: "MetaRouterMetrics", package: "MetaRouterIntegrations"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "ServerApp", dependencies: ["ServerAppKit"]),
        .executableTarget(
            name: "VaporApp",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "MetaRouterVapor", package: "MetaRouterIntegrations"),
                .product(name: "MetaRouterServiceLifecycle", package: "MetaRouterIntegrations"),
                .product(name: "MetaRouterLogging", package: "MetaRouterIntegrations"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .executableTarget(
            name: "DeliveryBenchmark",
            dependencies: ["ServerAppKit", .product(name: "MetaRouterAsyncHTTPClient", package: "MetaRouterIntegrations")]),
        // The load test's counting collector (`LoadTest/loadtest.py`).
        .target(name: "LoadCollectorKit"),
        .executableTarget(
            name: "LoadCollector",
            dependencies: [
                "LoadCollectorKit", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ServerAppTests",
            dependencies: [
                "ServerAppKit", "ServerApp", "LoadCollectorKit",
                .product(name: "MetaRouterCLIKit", package: "MetaRouterCLI"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
