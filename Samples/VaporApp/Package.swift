// swift-tools-version:6.0
import PackageDescription

/// A small Vapor service that tracks through MetaRouter with the integration products: one
/// instance per tenant, `request.analytics` with the request's identity, logs in swift-log,
/// and a drain when Vapor shuts down (SIGTERM, SIGINT).
let package = Package(
    name: "VaporApp",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "MetaRouter", path: "../.."),
        .package(name: "MetaRouterIntegrations", path: "../../Integrations"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
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
    ],
    swiftLanguageModes: [.v6]
)
