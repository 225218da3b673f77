// swift-tools-version:6.1
import PackageDescription

/// An app target that gets typed events from its tracking plan at every build: the
/// `MetaRouterEvents` build-tool plugin reads `tracking-plan.json` beside the sources and writes
/// one value type per planned event and typed methods on `Analytics` (Docs/TypedEvents.md). The
/// same file is a resource, so the app enforces it on the device too.
let package = Package(
    name: "TypedEvents",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "MetaRouter", path: "../.."),
    ],
    targets: [
        .target(
            name: "TypedEventsApp",
            dependencies: [.product(name: "MetaRouter", package: "MetaRouter")],
            resources: [.copy("tracking-plan.json")],
            plugins: [.plugin(name: "MetaRouterEvents", package: "MetaRouter")]
        ),
        // The JSON Schema draft 7 suite's supported groups as a plan: values built through its
        // types from the suite's valid instances keep the plan on the device.
        .target(
            name: "SuiteEvents",
            dependencies: [.product(name: "MetaRouter", package: "MetaRouter")],
            resources: [.copy("tracking-plan.json")],
            plugins: [.plugin(name: "MetaRouterEvents", package: "MetaRouter")]
        ),
        .testTarget(
            name: "TypedEventsAppTests",
            dependencies: ["TypedEventsApp", "SuiteEvents", .product(name: "MetaRouterTesting", package: "MetaRouter")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
