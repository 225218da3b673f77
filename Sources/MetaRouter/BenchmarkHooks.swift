import MetaRouterAdvertisingID
import MetaRouterCore

// The built-ins the benchmark package puts in a pipeline it assembles without the facade. SPI,
// not public API: only a client that imports this module with `@_spi(Benchmarks)` sees it, and
// it may change in any release.

/// The advertising-ID plugin, as the facade adds it.
@_spi(Benchmarks) public func benchmarkAdvertisingIDPlugin() -> any Plugin { AdvertisingIDPlugin() }
