// swift-tools-version:6.0
import PackageDescription

/// The probes that need a process of their own: the idle cost `Benchmarks/idle-wakeups`
/// measures, the start-up cost `Benchmarks/startup` measures and the peak memory of delivering
/// a burst that `Benchmarks/peak-memory` measures. A package of its own, so that
/// package-benchmark does not take them for benchmarks.
let package = Package(
    name: "IdleProbe",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "MetaRouter", path: "../.."), .package(path: "../../Samples/CollectorProcess")],
    targets: [
        .executableTarget(name: "IdleProbe", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
        .executableTarget(name: "StartupProbe", dependencies: [.product(name: "MetaRouter", package: "MetaRouter")]),
        .executableTarget(
            name: "PeakProbe",
            dependencies: [.product(name: "MetaRouter", package: "MetaRouter"), .product(name: "CollectorProcess", package: "CollectorProcess")]),
    ],
    swiftLanguageModes: [.v6]
)
