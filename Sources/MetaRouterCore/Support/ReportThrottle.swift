/// Counts something that can happen on every call (an event refused, an event evicted) and
/// says when to log it: at the first occurrence, then at most once per `interval`, with the
/// count since the last report. However often it happens, the log gets one line per interval.
/// A burst that ends inside an interval leaves a count unreported: ``takeUnreported()`` hands it
/// over at a quiet moment (a flush, a shutdown, a binding), and ``total`` keeps every line true.
package struct ReportThrottle: Sendable {
    private let interval: Double
    private var unreported = 0
    private var lastReport: Double?
    /// Every occurrence added so far, reported or not.
    package private(set) var total = 0

    /// A throttle reporting at most once per `interval` seconds.
    package init(interval: Double) { self.interval = interval }

    /// Adds `count` occurrences at `now` (seconds on any clock); returns the count to report
    /// now, or `nil` while the interval since the last report runs. A clock that went back
    /// reports at once.
    package mutating func add(_ count: Int, at now: Double) -> Int? {
        unreported += count
        total += count
        if let lastReport, now >= lastReport, now - lastReport < interval { return nil }
        lastReport = now
        defer { unreported = 0 }
        return unreported
    }

    /// The count not reported yet, now, whatever the interval (`nil` when there is none); the
    /// next ``add(_:at:)`` reports at once.
    package mutating func takeUnreported() -> Int? {
        guard unreported > 0 else { return nil }
        defer {
            unreported = 0
            lastReport = nil
        }
        return unreported
    }
}
