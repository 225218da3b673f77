#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MetaRouterCore
import MetaRouterErrors

/// Crash capture for one instance (`captureCrashes`). When it joins the timeline it installs
/// the process-wide ``CrashSignalHandler`` (once), sets aside the record the previous run left
/// (`crash.record` → `crash-<id>.pending`), opens a fresh `crash.record` for the handler and
/// registers it with this instance's breadcrumb slots. The client turns each pending record into
/// an `Application Crashed` event and calls ``finish(_:)`` once the event is in the log; a start
/// killed before that reads the same record again, with the same `messageId`.
///
/// Files live in `directory` (the instance's `crash` folder); only files this plugin created
/// are ever removed.
package final class CrashReportPlugin: Plugin {
    /// Sees no events.
    package let type = PluginType.utility
    /// Where the record files live.
    package let directory: URL
    /// The breadcrumb slots the handler copies (the last `breadcrumbCapacity`, at most 100).
    package let slots: CrashBreadcrumbSlots
    private var registration: Int?
    private var fd: Int32 = -1

    /// Crash capture writing into `directory`, keeping `breadcrumbCapacity` breadcrumbs.
    package init(directory: URL, breadcrumbCapacity: Int = 50) {
        self.directory = directory
        slots = CrashBreadcrumbSlots(count: breadcrumbCapacity)
    }

    deinit { withdraw() }

    private var recordFile: URL { directory.appendingPathComponent("crash.record") }

    /// Sets the last run's record aside, then installs and registers.
    package func configure(analytics: AnalyticsClient) {
        guard CrashSignalHandler.isSupported else {
            analytics.logger.warning("sdk.crash_capture_unavailable: this platform (tvOS, watchOS) does not allow crash capture; errors are still captured")
            return
        }
        let files = FileManager.default
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            if let size = (try? files.attributesOfItem(atPath: recordFile.path))?[.size] as? NSNumber, size.intValue > 0 {
                try files.moveItem(at: recordFile, to: directory.appendingPathComponent("crash-\(UUID().uuidString).pending"))
            }
        } catch {
            analytics.logger.warning("sdk.crash_capture_unavailable: \(directory.path) cannot hold crash records (\(error.localizedDescription)); crashes will not be reported")
            return
        }
        CrashSignalHandler.install()
        fd = open(recordFile.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            analytics.logger.warning("sdk.crash_capture_unavailable: cannot open \(recordFile.path) (errno \(errno)); crashes will not be reported")
            return
        }
        let id = UUID().uuid
        let recordId = withUnsafeBytes(of: id) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        registration = CrashSignalHandler.register(fd: fd, recordId: recordId, slots: slots)
        if registration == nil {
            analytics.logger.warning("sdk.crash_capture_unavailable: \(CrashHandlerState.maxRegistrations) instances capture crashes already")
        }
    }

    /// The records earlier runs left, oldest first: each file with its report, or `nil` when the
    /// file is not a whole record (a crash while it was being written).
    package func pendingReports() -> [(file: URL, report: CrashReport?)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let files = names.filter { $0.hasPrefix("crash-") && $0.hasSuffix(".pending") }.map { directory.appendingPathComponent($0) }
        return files.map { file in
            let bytes = (try? Data(contentsOf: file)).map { [UInt8]($0) } ?? []
            return (file, CrashReport(bytes: bytes))
        }.sorted { ($0.report?.time ?? .distantPast) < ($1.report?.time ?? .distantPast) }
    }

    /// Removes a pending record: its event is in the log, or it was not to be sent.
    package func finish(_ file: URL) {
        guard file.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL,
            file.lastPathComponent.hasPrefix("crash-"), file.pathExtension == "pending"
        else { return }
        try? FileManager.default.removeItem(at: file)
    }

    /// Withdraws the registration and removes the (empty) record file: a clean shutdown is
    /// not a crash.
    package func shutdown() {
        withdraw()
        try? FileManager.default.removeItem(at: recordFile)
    }

    private func withdraw() {
        if let registration {
            CrashSignalHandler.unregister(registration)
            self.registration = nil
            slots.recycle()
        }
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }
}
