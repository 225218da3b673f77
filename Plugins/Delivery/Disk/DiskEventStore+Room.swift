import MetaRouterCore

/// Room beyond the event limit for a backlog replayed at once.
extension DiskEventStore {
    /// Raises ``DiskLogOptions/maxEvents`` by `count` until as many events have been
    /// acknowledged; ``DiskLogOptions/maxBytes`` stays.
    package func makeRoom(forMore count: Int) { extraRoom += max(0, count) }

    /// ``DiskLogOptions/maxEvents`` and the extra room, saturating (a cap of `Int.max` is valid).
    var eventLimit: Int {
        let (sum, overflow) = options.maxEvents.addingReportingOverflow(extraRoom)
        return overflow ? .max : sum
    }
}
