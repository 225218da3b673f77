// What the benchmark package measures below the public API. SPI, not public API: only a client
// that imports this module with `@_spi(Benchmarks)` sees it, and it may change in any release.

/// `event` encoded as it is queued: its JSON object's bytes.
@_spi(Benchmarks) public func benchmarkEventJSONBytes(_ event: Event) -> [UInt8] { event.jsonBytes() }
