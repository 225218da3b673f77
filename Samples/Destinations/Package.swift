// swift-tools-version:6.1
import PackageDescription

/// Three vendors' wire formats on the SDK's durable delivery engine (`DurableDestination`):
/// Amplitude HTTP V2, Mixpanel ingestion and PostHog's batch API, a tool that prints what each
/// sends for a fixed list of calls (checked against the vendors' own Python clients by
/// `Conformance/compare.py`), and end-to-end fault tests. Not one of the SDK's products.
let package = Package(
    name: "Destinations",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Destinations", targets: ["Destinations"]),
        .executable(name: "destinations-tool", targets: ["DestinationsTool"]),
    ],
    dependencies: [.package(name: "MetaRouter", path: "../..")],
    targets: [
        .target(name: "Destinations", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
        .executableTarget(
            name: "DestinationsTool", dependencies: ["Destinations", .product(name: "MetaRouter", package: "MetaRouter")]),
        .testTarget(
            name: "DestinationsTests",
            dependencies: ["Destinations", .product(name: "MetaRouter", package: "MetaRouter")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
