import MetaRouterAdvertisingID
import MetaRouterCore

/// The built-ins the benchmark package puts in a pipeline it assembles without the facade. SPI,
/// not public API: only a client that imports this module with `@_spi(Benchmarks)` sees it, and
/// it may change in any release.
@_spi(Benchmarks) public enum FacadeBenchmarkHooks {
    /// The advertising-ID plugin, as the facade adds it.
    @_spi(Benchmarks) public static func advertisingIDPlugin() -> any Plugin { AdvertisingIDPlugin() }
}
