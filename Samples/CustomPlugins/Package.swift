// swift-tools-version:6.1
import PackageDescription

/// Worked plugin examples: enrichment plugins an app team composes, and a destination an
/// integrator adds on the shared delivery machinery.
let package = Package(
    name: "CustomPlugins",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "MetaRouter", path: "../.."), .package(path: "../CollectorProcess")],
    targets: [
        .target(name: "CustomPlugins", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
        .testTarget(
            name: "CustomPluginsTests",
            dependencies: [
                "CustomPlugins", .product(name: "MetaRouterTesting", package: "MetaRouter"),
                .product(name: "CollectorProcess", package: "CollectorProcess"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
