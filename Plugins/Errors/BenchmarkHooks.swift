import MetaRouterCore

/// What the benchmark package measures below the public API. SPI, not public API: only a
/// client that imports this module with `@_spi(Benchmarks)` sees it.
@_spi(Benchmarks) public enum ErrorsBenchmarkHooks {
    /// Makes `breadcrumbs` copy each breadcrumb into `crashes`' crash-safe slots, as the
    /// facade does when crash capture is on.
    public static func connect(_ breadcrumbs: BreadcrumbsPlugin, to crashes: CrashReportPlugin) {
        breadcrumbs.crashSlots = crashes.slots
    }
}
