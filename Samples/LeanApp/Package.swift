// swift-tools-version:6.1
import PackageDescription

/// An app that uses only the seed API and turns every trait of the facade off: it links the
/// seed API's modules and none of the rules, privacy, tracking-plan, error-capture, crash-capture,
/// signals or entitlements ones (Docs/Architecture.md, "Traits"). Its test sends a session over loopback HTTP.
let package = Package(
    name: "LeanApp",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "MetaRouter", path: "../..", traits: []),
        .package(path: "../CollectorProcess"),
    ],
    targets: [
        .target(name: "LeanApp", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
        .testTarget(name: "LeanAppTests", dependencies: ["LeanApp", .product(name: "CollectorProcess", package: "CollectorProcess")]),
    ],
    swiftLanguageModes: [.v6]
)
