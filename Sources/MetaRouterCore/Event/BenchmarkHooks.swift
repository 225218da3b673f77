/// What the benchmark package measures below the public API. SPI, not public API: only a
/// client that imports this module with `@_spi(Benchmarks)` sees it.
@_spi(Benchmarks) public enum CoreBenchmarkHooks {
    /// `event` encoded as it is queued: its JSON object's bytes.
    @_spi(Benchmarks) public static func jsonBytes(of event: Event) -> [UInt8] { event.jsonBytes() }
}
