// swift-tools-version:6.1
import PackageDescription

/// The root package's test collector (`Tests/MetaRouterDeliveryTests/Fixtures/collector.py`) as
/// a process on 127.0.0.1, for the tests of the samples and the benchmarks. It asks for none of
/// the SDK's traits, so a package that turns them off (`Samples/LeanApp`) keeps them off.
let package = Package(
    name: "CollectorProcess",
    platforms: [.macOS(.v13)],
    products: [.library(name: "CollectorProcess", targets: ["CollectorProcess"])],
    dependencies: [.package(name: "MetaRouter", path: "../..", traits: [])],
    targets: [
        .target(name: "CollectorProcess", dependencies: [.product(name: "MetaRouterCore", package: "MetaRouter")])
    ],
    swiftLanguageModes: [.v6]
)
