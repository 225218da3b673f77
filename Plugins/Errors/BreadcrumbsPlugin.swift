import Foundation
import MetaRouterCore

/// Keeps the last ``capacity`` breadcrumbs in a ring, in memory: one for every `track` that
/// gets this far (category `track`, the event's name), and those the app adds
/// (`addBreadcrumb(_:)`). `reset()` and `forget()` clear it. An enrichment plugin: it runs
/// after consent, scrubbing and the tracking plan, so a dropped call leaves no breadcrumb and
/// a scrubbed one leaves a scrubbed name.
package final class BreadcrumbsPlugin: EventPlugin {
    /// Among the enrichment plugins.
    package let type = PluginType.enrichment
    /// Breadcrumbs kept at most (at least 1).
    package let capacity: Int
    // The plugin runs on its client's executor, so the runtime's check of each access to these
    // (a fifth of adding a breadcrumb) guards nothing.
    @exclusivity(unchecked) private var ring: [Breadcrumb] = []
    @exclusivity(unchecked) private var next = 0

    /// Where crash capture keeps a copy a crash record can carry; set by ``CrashReportPlugin``'s
    /// client, it receives the breadcrumbs already kept.
    @exclusivity(unchecked) package var crashSlots: CrashBreadcrumbSlots? {
        didSet { for breadcrumb in breadcrumbs { crashSlots?.add(breadcrumb) } }
    }

    /// A ring of `capacity` breadcrumbs (50 by default).
    package init(capacity: Int = 50) {
        self.capacity = max(1, capacity)
        ring.reserveCapacity(self.capacity)
    }

    /// Adds a breadcrumb, dropping the oldest when full.
    package func add(_ breadcrumb: Breadcrumb) {
        if ring.count < capacity {
            ring.append(breadcrumb)
        } else {
            ring[next] = breadcrumb
        }
        next = (next + 1) % capacity
        crashSlots?.add(breadcrumb)
    }

    /// The breadcrumbs, oldest first.
    package var breadcrumbs: [Breadcrumb] {
        ring.count < capacity ? ring : Array(ring[next...] + ring[..<next])
    }

    /// Removes every breadcrumb; returns how many there were.
    @discardableResult
    package func clear() -> Int {
        defer {
            ring.removeAll(keepingCapacity: true)
            next = 0
            crashSlots?.clear()
        }
        return ring.count
    }

    /// A logout clears the trail.
    package func reset() { clear() }

    /// Every track leaves a breadcrumb.
    package func track(event: Event) -> Event? {
        add(Breadcrumb(category: "track", message: event.event ?? "", timestamp: event.timestamp))
        return event
    }
}
