// swift-tools-version:6.1
import PackageDescription

/// MetaRouter Swift: zero package dependencies. Each built-in behaviour is a plugin module
/// that imports only `MetaRouterCore` (its public plugin API and some `package` helpers); the
/// products are chosen in Docs/Architecture.md ("Public surface").
///
/// The facade's pillars beyond the seed API are traits, all on by default: an app that depends
/// on the package with `traits: []` gets the seed API (tracking, identity, context, advertising
/// ID, lifecycle, sessions, delivery) and links none of their modules (Docs/Architecture.md,
/// "Traits"). Each trait is also a compilation condition of the facade's sources.
let package = Package(
    name: "MetaRouter",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "MetaRouter", targets: ["MetaRouter"]),
        .library(name: "MetaRouterCore", targets: ["MetaRouterCore"]),
        // Each plugin module stays a product of its own (a released product is not taken away);
        // what each makes public is the option and report types the facade uses.
        .library(name: "MetaRouterIdentity", targets: ["MetaRouterIdentity"]),
        .library(name: "MetaRouterContext", targets: ["MetaRouterContext"]),
        .library(name: "MetaRouterDelivery", targets: ["MetaRouterDelivery"]),
        .library(name: "MetaRouterLifecycle", targets: ["MetaRouterLifecycle"]),
        .library(name: "MetaRouterTransforms", targets: ["MetaRouterTransforms"]),
        .library(name: "MetaRouterPrivacy", targets: ["MetaRouterPrivacy"]),
        .library(name: "MetaRouterTrackingPlan", targets: ["MetaRouterTrackingPlan"]),
        .library(name: "MetaRouterErrors", targets: ["MetaRouterErrors"]),
        .library(name: "MetaRouterCrashes", targets: ["MetaRouterCrashes"]),
        .library(name: "MetaRouterSignals", targets: ["MetaRouterSignals"]),
        .library(name: "MetaRouterEntitlements", targets: ["MetaRouterEntitlements"]),
        .library(name: "MetaRouterTesting", targets: ["MetaRouterTesting"]),
        .library(name: "MetaRouterEventsGenerator", targets: ["MetaRouterEventsGenerator"]),
        .executable(name: "metarouter-events-gen", targets: ["metarouter-events-gen"]),
        .plugin(name: "MetaRouterEvents", targets: ["MetaRouterEvents"]),
    ],
    traits: [
        .trait(name: "Rules", description: "Transform rules, rules without an app update and signal generators in the rule language (MetaRouterTransforms)."),
        .trait(name: "Privacy", description: "Consent, super properties and PII scrubbing (MetaRouterPrivacy)."),
        .trait(name: "TrackingPlan", description: "A tracking plan enforced on the device (MetaRouterTrackingPlan)."),
        .trait(name: "ErrorCapture", description: "captureError and breadcrumbs (MetaRouterErrors)."),
        .trait(
            name: "CrashCapture", description: "Crash records sent at the next start (MetaRouterCrashes); turns ErrorCapture on.",
            enabledTraits: ["ErrorCapture"]),
        .trait(name: "Signals", description: "Signals: the buffer, broadcasters and event generators that emit feeds (MetaRouterSignals)."),
        .trait(name: "Entitlements", description: "isEntitled, refreshEntitlements and recordPurchase (MetaRouterEntitlements)."),
        .default(enabledTraits: ["Rules", "Privacy", "TrackingPlan", "ErrorCapture", "CrashCapture", "Signals", "Entitlements"]),
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
        // Calls libcurl's variadic entry points from C (a target of this package, not a dependency).
        .target(name: "MetaRouterCurlShim", path: "Sources/MetaRouterCurlShim"),
        .target(name: "MetaRouterDelivery", dependencies: ["MetaRouterCore", "MetaRouterCurlShim"], path: "Plugins/Delivery"),
        .target(name: "MetaRouterLifecycle", dependencies: ["MetaRouterCore", "MetaRouterPlatform"], path: "Plugins/Lifecycle"),
        .target(name: "MetaRouterTransforms", dependencies: ["MetaRouterCore", "MetaRouterDelivery"], path: "Plugins/Transforms"),
        .target(name: "MetaRouterPrivacy", dependencies: ["MetaRouterCore"], path: "Plugins/Privacy"),
        .target(name: "MetaRouterTrackingPlan", dependencies: ["MetaRouterCore"], path: "Plugins/TrackingPlan"),
        .target(name: "MetaRouterErrors", dependencies: ["MetaRouterCore"], path: "Plugins/Errors"),
        .target(name: "MetaRouterCrashes", dependencies: ["MetaRouterCore", "MetaRouterErrors"], path: "Plugins/Crashes"),
        .target(name: "MetaRouterSignals", dependencies: ["MetaRouterCore", "MetaRouterDelivery"], path: "Plugins/Signals"),
        .target(name: "MetaRouterEntitlements", dependencies: ["MetaRouterCore", "MetaRouterDelivery"], path: "Plugins/Entitlements"),
        .target(
            name: "MetaRouter",
            dependencies: [
                "MetaRouterCore", "MetaRouterIdentity", "MetaRouterContext", "MetaRouterAdvertisingID", "MetaRouterDelivery",
                "MetaRouterLifecycle", "MetaRouterPlatform",
                .target(name: "MetaRouterTransforms", condition: .when(traits: ["Rules"])),
                .target(name: "MetaRouterPrivacy", condition: .when(traits: ["Privacy"])),
                .target(name: "MetaRouterTrackingPlan", condition: .when(traits: ["TrackingPlan"])),
                .target(name: "MetaRouterErrors", condition: .when(traits: ["ErrorCapture"])),
                .target(name: "MetaRouterCrashes", condition: .when(traits: ["CrashCapture"])),
                .target(name: "MetaRouterSignals", condition: .when(traits: ["Signals"])),
                .target(name: "MetaRouterEntitlements", condition: .when(traits: ["Entitlements"])),
            ],
            path: "Sources/MetaRouter"
        ),
        .target(name: "MetaRouterTesting", dependencies: ["MetaRouter"], path: "Sources/MetaRouterTesting"),
        // Typed events from the tracking plan: the generator, its command line, and the
        // build-tool plugin that runs it at every build (Docs/TypedEvents.md).
        .target(name: "MetaRouterEventsGenerator", dependencies: ["MetaRouterCore", "MetaRouterTrackingPlan"], path: "Sources/MetaRouterEventsGenerator"),
        .executableTarget(name: "metarouter-events-gen", dependencies: ["MetaRouterEventsGenerator"], path: "Sources/MetaRouterEventsGen"),
        .plugin(name: "MetaRouterEvents", capability: .buildTool(), dependencies: ["metarouter-events-gen"], path: "BuildPlugins/MetaRouterEvents"),
        .executableTarget(
            name: "MetaRouterCrashChild",
            dependencies: ["MetaRouter", "MetaRouterTesting"],
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
                "MetaRouterAdvertisingID", "MetaRouterPrivacy", "MetaRouterTrackingPlan", "MetaRouterErrors", "MetaRouterCrashes",
                "MetaRouterPlatform",
            ],
            path: "Tests/MetaRouterPluginTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MetaRouterEventsGeneratorTests",
            dependencies: ["MetaRouterEventsGenerator", "MetaRouterTesting"],
            path: "Tests/MetaRouterEventsGeneratorTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MetaRouterTransformsTests",
            dependencies: ["MetaRouter", "MetaRouterTransforms", "MetaRouterTesting"],
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
