import MetaRouterCore

// What the benchmark package measures below the public API. SPI, not public API: only a client
// that imports this module with `@_spi(Benchmarks)` sees it, and it may change in any release.

/// The PII scrubbing plugin with default options, scrubbing on.
@_spi(Benchmarks) public func benchmarkScrubber() -> any Plugin { PIIScrubPlugin(enabled: true) }
