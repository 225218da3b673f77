// swift-tools-version:6.0
import PackageDescription

/// MetaRouter Swift: zero package dependencies. Each built-in behaviour is a plugin module
/// that imports only `MetaRouterCore` (its public plugin API and some `package` helpers); the
/// products are chosen in Docs/Architecture.md ("Public surface").
let package = Package(
    name: "MetaRouter",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "MetaRouter", targets: ["MetaRouter"]),
        .library(name: "MetaRouterCore", targets: ["MetaRouterCore"]),
        // Each plugin module on its own, so a server can depend on Core and Delivery without
        // UIKit lifecycle glue or the rule language.
        .library(name: "MetaRouterIdentity", targets: ["MetaRouterIdentity"]),
        .library(name: "MetaRouterContext", targets: ["MetaRouterContext"]),
        .library(name: "MetaRouterDelivery", targets: ["MetaRouterDelivery"]),
        .library(name: "MetaRouterLifecycle", targets: ["MetaRouterLifecycle"]),
        .library(name: "MetaRouterTransforms", targets: ["MetaRouterTransforms"]),
        .library(name: "MetaRouterPrivacy", targets: ["MetaRouterPrivacy"]),
        .library(name: "MetaRouterErrors", targets: ["MetaRouterErrors"]),
        .library(name: "MetaRouterSignals", targets: ["MetaRouterSignals"]),
        .library(name: "MetaRouterEntitlements", targets: ["MetaRouterEntitlements"]),
        .library(name: "MetaRouterTesting", targets: ["MetaRouterTesting"]),
    ],
    targets: [
        .target(name: "MetaRouterCore", path: "Sources/MetaRouterCore", resources: [.copy("PrivacyInfo.xcprivacy")]),
        .target(name: "MetaRouterIdentity", dependencies: ["MetaRouterCore"], path: "Plugins/Identity"),
        // Apple platform glue the plugins share (the application object, app extensions, protected
        // data); not a product.
        .target(name: "MetaRouterPlatform", dependencies: ["MetaRouterCore"], path: "Sources/MetaRouterPlatform"),
        .target(name: "MetaRouterContext", dependencies: ["MetaRouterCore", "MetaRouterPlatform"], path: "Plugins/Context"),
        // The IDFA plugin the facade's setAdvertisingId drives; nothing public, so not a product.
        .target(name: "MetaRouterAdvertisingID", dependencies: ["MetaRouterCore"], path: "Plugins/AdvertisingID"),
        .target(name: "MetaRouterDelivery", dependencies: ["MetaRouterCore"], path: "Plugins/Delivery"),
        .target(name: "MetaRouterLifecycle", dependencies: ["MetaRouterCore", "MetaRouterPlatform"], path: "Plugins/Lifecycle"),
        .target(name: "MetaRouterTransforms", dependencies: ["MetaRouterCore", "MetaRouterDelivery"], path: "Plugins/Transforms"),
        .target(name: "MetaRouterPrivacy", dependencies: ["MetaRouterCore"], path: "Plugins/Privacy"),
        .target(name: "MetaRouterErrors", dependencies: ["MetaRouterCore"], path: "Plugins/Errors"),
        .target(name: "MetaRouterSignals", dependencies: ["MetaRouterCore", "MetaRouterDelivery"], path: "Plugins/Signals"),
        .target(name: "MetaRouterEntitlements", dependencies: ["MetaRouterCore", "MetaRouterDelivery"], path: "Plugins/Entitlements"),
        .target(
            name: "MetaRouter",
            dependencies: [
                "MetaRouterCore", "MetaRouterIdentity", "MetaRouterContext",
                "MetaRouterAdvertisingID", "MetaRouterDelivery", "MetaRouterLifecycle", "MetaRouterTransforms",
                "MetaRouterPrivacy", "MetaRouterErrors", "MetaRouterSignals", "MetaRouterEntitlements", "MetaRouterPlatform",
            ],
            path: "Sources/MetaRouter"
        ),
        .target(name: "MetaRouterTesting", dependencies: ["MetaRouterCore"], path: "Sources/MetaRouterTesting"),
        .executableTarget(
            name: "MetaRouterCrashChild",
            dependencies: ["MetaRouter"],
            path: "Tests/CrashChild"
        ),
        .testTarget(
            name: "MetaRouterCoreTests",
            dependencies: ["MetaRouterCore", "MetaRouterTesting"],
            path: "Tests/MetaRouterCoreTests"
        ),
        .testTarget(
            name: "MetaRouterPluginTests",
            dependencies: [
                "MetaRouter", "MetaRouterTesting", "MetaRouterIdentity", "MetaRouterContext",
                "MetaRouterAdvertisingID", "MetaRouterPrivacy", "MetaRouterErrors", "MetaRouterPlatform",
            ],
            path: "Tests/MetaRouterPluginTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MetaRouterTransformsTests",
            dependencies: ["MetaRouterTransforms", "MetaRouterTesting"],
            path: "Tests/MetaRouterTransformsTests"
        ),
        .testTarget(
            name: "MetaRouterDeliveryTests",
            dependencies: ["MetaRouter", "MetaRouterDelivery", "MetaRouterTesting", "MetaRouterCrashChild"],
            path: "Tests/MetaRouterDeliveryTests",
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
