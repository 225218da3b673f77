// swift-tools-version:6.1
import PackageDescription

/// The benchmark suite (package-benchmark). Run from this folder:
/// `swift package --disable-sandbox benchmark`.
let package = Package(
    name: "MetaRouterBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "MetaRouter", path: ".."),
        .package(path: "../Samples/CollectorProcess"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "MetaRouterBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CollectorProcess", package: "CollectorProcess"),
                .product(name: "MetaRouter", package: "MetaRouter"),
                .product(name: "MetaRouterCore", package: "MetaRouter"),
                .product(name: "MetaRouterDelivery", package: "MetaRouter"),
                .product(name: "MetaRouterErrors", package: "MetaRouter"),
                .product(name: "MetaRouterTesting", package: "MetaRouter"),
            ],
            path: "Benchmarks/MetaRouterBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
