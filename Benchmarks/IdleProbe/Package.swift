// swift-tools-version:6.0
import PackageDescription

/// The probes that need a process of their own: the idle cost `Benchmarks/idle-wakeups`
/// measures and the start-up cost `Benchmarks/startup` measures. A package of its own, so that
/// package-benchmark does not take them for benchmarks.
let package = Package(
    name: "IdleProbe",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "MetaRouter", path: "../..")],
    targets: [
        .executableTarget(name: "IdleProbe", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
        .executableTarget(name: "StartupProbe", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
    ],
    swiftLanguageModes: [.v6]
)
