// swift-tools-version:6.1
import PackageDescription

/// MetaRouter for server-side Swift: products that plug the SDK into the ecosystem's own
/// abstractions (swift-log, swift-metrics, ServiceLifecycle, AsyncHTTPClient, distributed tracing,
/// Hummingbird, Vapor). A package of its
/// own, so the SDK's root package keeps zero dependencies.
///
/// Each framework is a trait (SE-0450), all on by default: a server that names only the traits
/// of the products it uses — `traits: ["Logging"]` — resolves and builds those frameworks alone
/// (`Docs/ServerIntegrations.md`, "Depending on the integrations"). Every target dependency
/// that names a framework is guarded by its trait, so a trait left off takes its packages out
/// of the graph; a product whose trait is off does not build.
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
    traits: [
        .trait(name: "Logging", description: "MetaRouterLogging: the SDK's log lines through swift-log."),
        .trait(name: "ServiceLifecycle", description: "MetaRouterServiceLifecycle: AnalyticsService and AnalyticsTenants (swift-service-lifecycle, swift-log)."),
        .trait(name: "Metrics", description: "MetaRouterMetrics: the SDK's figures through swift-metrics.", enabledTraits: ["ServiceLifecycle"]),
        .trait(name: "AsyncHTTPClient", description: "MetaRouterAsyncHTTPClient: uploads through AsyncHTTPClient."),
        .trait(name: "Tracing", description: "MetaRouterTracing: trace ids from swift-distributed-tracing."),
        .trait(name: "Hummingbird", description: "MetaRouterHummingbird: middleware for Hummingbird 2.", enabledTraits: ["ServiceLifecycle", "Tracing"]),
        .trait(name: "Vapor", description: "MetaRouterVapor: middleware for Vapor 4.", enabledTraits: ["ServiceLifecycle", "Tracing"]),
        .default(enabledTraits: ["Logging", "ServiceLifecycle", "Metrics", "AsyncHTTPClient", "Tracing", "Hummingbird", "Vapor"]),
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
            dependencies: [.product(name: "MetaRouter", package: "MetaRouter"), .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"]))]),
        .target(
            name: "MetaRouterMetrics",
            dependencies: [
                "MetaRouterServiceLifecycle", .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Metrics"])),
            ]),
        .target(
            name: "MetaRouterServiceLifecycle",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["ServiceLifecycle"])),
            ]),
        .target(
            name: "MetaRouterAsyncHTTPClient",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
            ]),
        .target(
            name: "MetaRouterTracing",
            dependencies: [
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ]),
        .target(
            name: "MetaRouterHummingbird",
            dependencies: [
                "MetaRouterServiceLifecycle", "MetaRouterTracing", .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: .when(traits: ["Hummingbird"])),
            ]),
        .target(
            name: "MetaRouterVapor",
            dependencies: [
                "MetaRouterServiceLifecycle", "MetaRouterTracing", .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: .when(traits: ["Vapor"])),
            ]),
        // The tests need every trait (the default).
        .testTarget(
            name: "MetaRouterIntegrationsTests",
            dependencies: [
                "MetaRouterLogging", "MetaRouterMetrics", "MetaRouterServiceLifecycle", "MetaRouterAsyncHTTPClient",
                "MetaRouterTracing", "MetaRouterHummingbird", "MetaRouterVapor",
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
