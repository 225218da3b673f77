import Foundation

/// The tenants' disk budget, accounted by *measured* bytes: what each tenant's storage
/// directory holds (live, being evicted, evicted, or found at start), plus what directories
/// under the storage root hold whose tenant is not known. Nothing is reserved: a live tenant
/// counts what its log holds, not what it may grow to, so an eviction in flight or a
/// returning tenant's old log never leaves a newcomer without a log while the disk is far
/// from full. Each log is capped at a share of the budget, and admissions measure the live logs
/// again (each one once the bytes reach half the budget): they can outgrow the budget only by
/// what they write after the last measurement.
struct TenantDisk {
    /// Bytes last measured in each tenant's storage directory, by write key.
    private(set) var measured: [String: Int] = [:]
    /// Bytes of logs found at start whose tenant is unknown, by directory path.
    private(set) var unattributed: [String: Int] = [:]
    /// When the live tenants' directories were last measured.
    var lastSweep: ContinuousClock.Instant?
    /// Whether the last admission found the budget spent (logged once per spell).
    private(set) var spent = false
    /// Tenants admitted with no disk log because the budget was spent.
    private(set) var memoryOnlyAdmissions = 0

    /// Every byte measured.
    var total: Int {
        (measured.values.reduce(0) { $0.addingReportingOverflow($1).partialValue })
            .addingReportingOverflow(unattributed.values.reduce(0) { $0.addingReportingOverflow($1).partialValue }).partialValue
    }

    /// Records what `writeKey`'s directory (at `path`, if it has one) holds now.
    mutating func record(_ bytes: Int, for writeKey: String, path: String?) {
        measured[writeKey] = bytes > 0 ? bytes : nil
        if let path { unattributed[path] = nil }
    }

    /// Records a log found at start whose tenant is not known.
    mutating func recordUnattributed(_ bytes: Int, path: String) {
        unattributed[path] = bytes > 0 ? bytes : nil
    }

    /// The disk log `writeKey` may have if admitted now: its share (`asked` at most), less
    /// nothing unless the others' measured bytes leave less room than that — and never less
    /// than its own log already holds, so opening it drops nothing that was written down.
    /// Below `smallest` the tenant queues in memory only: counted, and `true` for the first
    /// such admission of a spell (the caller logs it).
    mutating func admit(_ writeKey: String, asked: Int, share: Int, budget: Int, smallest: Int) -> (bytes: Int, newlySpent: Bool) {
        let own = measured[writeKey, default: 0]
        let room = max(0, budget - (total - own))
        let bytes = min(max(0, asked), max(own, min(share, room)))
        guard bytes < smallest else {
            spent = false
            return (bytes, false)
        }
        // A share too small for a log by configuration is not a spent budget.
        guard room < smallest, share >= smallest, asked >= smallest else { return (bytes, false) }
        memoryOnlyAdmissions += 1
        defer { spent = true }
        return (bytes, !spent)
    }
}

/// The files ``AnalyticsTenants`` keeps beside a tenant's log, and the search for logs left
/// under the storage root.
enum TenantFiles {
    /// The file in a tenant's storage directory naming its write key, so a start can deliver a
    /// log whose tenant no list names (a resolver's). The events in the log carry the key too.
    static let keyFile = "tenant-key"

    /// Writes `writeKey` into `directory` (0600) unless it is there.
    static func noteKey(_ writeKey: String, in directory: URL) {
        let file = directory.appendingPathComponent(keyFile)
        guard !FileManager.default.fileExists(atPath: file.path) else { return }
        // The instance makes its directory on its own executor, perhaps not yet: 0700 as it does.
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(atPath: file.path, contents: Data(writeKey.utf8), attributes: [.posixPermissions: 0o600])
    }

    /// The key a directory's key file names, if any (at most `maxBytes` of it).
    static func key(in directory: URL, maxBytes: Int) -> String? {
        let file = directory.appendingPathComponent(keyFile)
        guard let size = (try? file.resourceValues(forKeys: [.fileSizeKey]))?.fileSize, size > 0, size <= maxBytes,
            let data = FileManager.default.contents(atPath: file.path)
        else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// Whether `directory` holds an event log with something in it.
    static func holdsEvents(_ directory: URL) -> Bool {
        DirectorySize.bytes(in: directory.appendingPathComponent("events", isDirectory: true)) > 0
    }

    /// The directories right under `root` that hold an event log with something in it.
    static func logs(under root: URL) -> [URL] {
        let entries = (try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
        return entries.prefix(100_000).filter { entry in
            (try? entry.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true && holdsEvents(entry)
        }
    }
}
