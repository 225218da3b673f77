import Foundation
import MetaRouterCore

// What the benchmark package measures below the public API. SPI, not public API: only a client
// that imports this module with `@_spi(Benchmarks)` sees it, and it may change in any release.

/// A breadcrumbs plugin keeping `capacity` breadcrumbs and the function that adds one to
/// it; with `crashDirectory`, each breadcrumb is also copied into the crash-safe slots of a
/// crash plugin there, as the facade does when crash capture is on.
@_spi(Benchmarks) public func benchmarkBreadcrumbs(capacity: Int, crashDirectory: URL?) -> (plugin: any EventPlugin, add: (Breadcrumb) -> Void) {
    let plugin = BreadcrumbsPlugin(capacity: capacity)
    if let crashDirectory { plugin.crashSlots = CrashReportPlugin(directory: crashDirectory).slots }
    return (plugin, { plugin.add($0) })
}
