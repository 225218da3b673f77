// swift-tools-version:6.0
import PackageDescription

/// The `metarouter` command: `demo`, `collect`, `send`. A sample package, so it may depend on
/// Swift packages the root package must not.
let package = Package(
    name: "MetaRouterCLI",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "metarouter", targets: ["metarouter"]),
        .library(name: "MetaRouterCLIKit", targets: ["MetaRouterCLIKit"]),
    ],
    dependencies: [
        .package(name: "MetaRouter", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The system's zlib (Debian: zlib1g-dev), for gzip-compressed batches.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(
            name: "MetaRouterCLIKit",
            dependencies: [
                "CZlib",
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "MetaRouterEventsGenerator", package: "MetaRouter"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "metarouter",
            dependencies: [
                "MetaRouterCLIKit",
                .product(name: "MetaRouterEventsGenerator", package: "MetaRouter"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MetaRouterCLIKitTests",
            dependencies: ["MetaRouterCLIKit", "metarouter", "CZlib", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
    ],
    swiftLanguageModes: [.v6]
)
