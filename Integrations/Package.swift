// swift-tools-version:6.0
import PackageDescription

/// MetaRouter for server-side Swift: products that plug the SDK into the ecosystem's own
/// abstractions (swift-log, swift-metrics, ServiceLifecycle, AsyncHTTPClient, distributed tracing,
/// Hummingbird, Vapor). A package of its
/// own, so the SDK's root package keeps zero dependencies.
let package = Package(
    name: "MetaRouterIntegrations",
    // macOS 15 for `Synchronization.Mutex`: these products are for servers (Linux) and the Macs
    // their developers run them on; apps use the root package, whose floor is iOS 15.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MetaRouterLogging", targets: ["MetaRouterLogging"]),
        .library(name: "MetaRouterMetrics", targets: ["MetaRouterMetrics"]),
        .library(name: "MetaRouterServiceLifecycle", targets: ["MetaRouterServiceLifecycle"]),
        .library(name: "MetaRouterAsyncHTTPClient", targets: ["MetaRouterAsyncHTTPClient"]),
        .library(name: "MetaRouterTracing", targets: ["MetaRouterTracing"]),
        .library(name: "MetaRouterHummingbird", targets: ["MetaRouterHummingbird"]),
        .library(name: "MetaRouterVapor", targets: ["MetaRouterVapor"]),
    ],
    dependencies: [
        .package(name: "MetaRouter", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .target(
            name: "MetaRouterLogging",
            dependencies: [.product(name: "MetaRouter", package: "MetaRouter"), .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "MetaRouterMetrics",
            dependencies: [
                "MetaRouterServiceLifecycle", .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "MetaRouterServiceLifecycle",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "MetaRouterAsyncHTTPClient",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
        .target(
            name: "MetaRouterTracing",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"), .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        .target(
            name: "MetaRouterHummingbird",
            dependencies: [
                "MetaRouterServiceLifecycle", "MetaRouterTracing", .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        .target(
            name: "MetaRouterVapor",
            dependencies: [
                "MetaRouterServiceLifecycle", "MetaRouterTracing", .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Vapor", package: "vapor"), .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        .testTarget(
            name: "MetaRouterIntegrationsTests",
            dependencies: [
                "MetaRouterLogging", "MetaRouterMetrics", "MetaRouterServiceLifecycle", "MetaRouterAsyncHTTPClient",
                "MetaRouterTracing", "MetaRouterHummingbird", "MetaRouterVapor",
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
