/// Counts something that can happen on every call (an event refused, an event evicted) and
/// says when to log it: at the first occurrence, then at most once per `interval`, with the
/// count since the last report. However often it happens, the log gets one line per interval.
package struct ReportThrottle: Sendable {
    private let interval: Double
    private var unreported = 0
    private var lastReport: Double?

    /// A throttle reporting at most once per `interval` seconds.
    package init(interval: Double) { self.interval = interval }

    /// Adds `count` occurrences at `now` (seconds on any clock); returns the count to report
    /// now, or `nil` while the interval since the last report runs. A clock that went back
    /// reports at once.
    package mutating func add(_ count: Int, at now: Double) -> Int? {
        unreported += count
        if let lastReport, now >= lastReport, now - lastReport < interval { return nil }
        lastReport = now
        defer { unreported = 0 }
        return unreported
    }
}
