import Foundation
import MetaRouter

/// What ``AnalyticsTenants/start()`` does: the known tenants, then the logs earlier runs left.
extension AnalyticsTenants {
    /// Makes the known tenants' instances, then delivers the logs earlier runs left on disk —
    /// evicted tenants', and those of tenants no list names — a few tenants at a time (four at
    /// most, within the room ``TenantLimits/maxLiveTenants`` leaves beside the known ones), and shuts
    /// each of those down again once delivered (unless a request came for it meanwhile).
    ///
    /// The logs are found under the storage root (the parent of the directories `options`
    /// gives): an allow-listed tenant's directory, or any directory whose key file names a key
    /// the policy admits (for a resolver, asked as for a request). A log whose tenant is not
    /// admitted is left where it is, and its bytes count against the disk budget.
    public func start() async {
        for writeKey in known { _ = try? await instance(for: writeKey) }
        let waiting = leftLogs()
        // No more at once than the cap leaves room for beside the known tenants: a delivery
        // admitted past it would evict another that is still delivering.
        let atOnce = max(1, min(4, limits.maxLiveTenants - known.count))
        await withTaskGroup(of: Void.self) { group in
            for (index, writeKey) in waiting.enumerated() {
                if index >= atOnce { await group.next() }
                group.addTask {
                    let began = ContinuousClock.now
                    guard let analytics = try? await self.admit(writeKey, usedAt: began) else { return }
                    await Self.deliver(analytics)
                    await self.evict(writeKey, ifUnusedSince: began)?.value
                }
            }
        }
    }

    /// The keys whose logs wait for delivery (sorted), after recording every log found under
    /// the storage root in the disk account.
    private func leftLogs() -> [String] {
        let (live, rule) = state.withLock { state in (Set(state.live.keys).union(state.evicting.keys), policy.rule) }
        var directories: [String: URL] = [:]
        for writeKey in Set(known).union(policy.listed) {
            if let directory = options(writeKey).storageDirectory { directories[writeKey] = directory.standardizedFileURL }
        }
        // The root, for a resolver whose tenants no list names: where `options` puts a key's directory.
        var roots = Set(directories.values.map { $0.deletingLastPathComponent().path })
        if let probe = options("metarouter-storage-root").storageDirectory { roots.insert(probe.standardizedFileURL.deletingLastPathComponent().path) }
        let byPath = Dictionary(directories.map { ($0.value.path, $0.key) }, uniquingKeysWith: { first, _ in first })
        var waiting: Set<String> = []
        var found: [(key: String?, path: String, bytes: Int)] = []
        for root in roots.sorted() {
            for directory in TenantFiles.logs(under: URL(fileURLWithPath: root, isDirectory: true)) {
                let path = directory.standardizedFileURL.path
                var key = byPath[path]
                if key == nil, case .resolver = rule, let named = TenantFiles.key(in: directory, maxBytes: limits.maxKeyBytes), isWellFormed(named),
                    options(named).storageDirectory?.standardizedFileURL.path == path
                {
                    key = named
                }
                found.append((key, path, DirectorySize.bytes(in: directory)))
                if let key, !live.contains(key), !known.contains(key) { waiting.insert(key) }
            }
        }
        state.withLock { state in
            for log in found {
                if let key = log.key {
                    if state.live[key] == nil, state.evicting[key] == nil { state.disk.record(log.bytes, for: key, path: log.path) }
                } else {
                    state.disk.recordUnattributed(log.bytes, path: log.path)
                }
            }
        }
        return waiting.sorted()
    }

    /// Flushes `analytics` until its queue is empty or a flush delivers nothing (the host is
    /// failing: the log waits for the next start, or the tenant's next request).
    private static func deliver(_ analytics: Analytics) async {
        var sent = -1
        for _ in 0..<10_000 {
            let info = await analytics.getDebugInfo()
            guard info.queueLength > 0, info.stats.sent > sent else { return }
            sent = info.stats.sent
            await analytics.flushAndWait()
        }
    }
}
