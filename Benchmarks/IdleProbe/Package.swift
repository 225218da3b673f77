// swift-tools-version:6.0
import PackageDescription

/// The idle-cost probe `Benchmarks/idle-wakeups` runs: a package of its own, so that
/// package-benchmark does not take it for a benchmark.
let package = Package(
    name: "IdleProbe",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "MetaRouter", path: "../..")],
    targets: [
        .executableTarget(name: "IdleProbe", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")])
    ],
    swiftLanguageModes: [.v6]
)
