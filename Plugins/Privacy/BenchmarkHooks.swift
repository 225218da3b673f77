import MetaRouterCore

/// What the benchmark package measures below the public API. SPI, not public API: only a
/// client that imports this module with `@_spi(Benchmarks)` sees it.
@_spi(Benchmarks) public enum PrivacyBenchmarkHooks {
    /// The PII scrubbing plugin with default options, scrubbing on.
    @_spi(Benchmarks) public static func scrubber() -> any Plugin { PIIScrubPlugin(enabled: true) }
}
