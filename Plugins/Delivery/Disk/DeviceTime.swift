import Foundation
import MetaRouterCore

/// How long a record has been on this device, the measure of the log's age limit: not the
/// event's own timestamp (a backfill may be days old when it is tracked) and not the wall
/// clock alone (a user may set it 30 days either way).
///
/// Device time is milliseconds: `uptime + offset`, with the offset fixed while the log is
/// open. Each segment starts with a `clock` record (the boot, the offset, and how far the wall
/// clock read from device time). Reopening the log on the same boot continues the same device
/// time exactly, whatever the wall clock did meanwhile; after a reboot, or where the boot
/// cannot be known, it continues from the last record written by however far the wall clock
/// moved since (never backwards); a fresh log, or one written before device time (its records
/// carry only event timestamps), starts at the wall clock.
struct DeviceTime: Equatable {
    /// The boot the offset is valid for.
    let boot: String?
    /// Device milliseconds minus uptime milliseconds.
    let offsetMillis: Int64
    /// Wall-clock milliseconds minus device milliseconds, when the log was opened.
    let wallOffsetMillis: Int64

    /// What recovery found of the device time before: the last `clock` record and the latest
    /// device time any record carries.
    struct Previous {
        var clock: DeviceTime?
        var latestMillis: Int64?
    }

    /// The device time of a log opened at `wall` and `uptime` on `boot`.
    static func resume(_ previous: Previous, boot: String?, wall: Date, uptime: TimeInterval) -> DeviceTime {
        let wallMillis = Timestamp.epochMillis(wall)
        let uptimeMillis = millis(uptime)
        let now: Int64
        if let clock = previous.clock, let boot, clock.boot == boot {
            now = uptimeMillis.addingReportingOverflow(clock.offsetMillis).partialValue
        } else if let clock = previous.clock, let latest = previous.latestMillis {
            // The wall clock's reading of the last record, from the offset of the run that wrote it.
            let wallThen = latest.addingReportingOverflow(clock.wallOffsetMillis).partialValue
            let elapsed = wallMillis.subtractingReportingOverflow(wallThen)
            now = latest.addingReportingOverflow(elapsed.overflow ? 0 : max(0, elapsed.partialValue)).partialValue
        } else {
            now = wallMillis
        }
        return DeviceTime(
            boot: boot, offsetMillis: now.subtractingReportingOverflow(uptimeMillis).partialValue,
            wallOffsetMillis: wallMillis.subtractingReportingOverflow(now).partialValue)
    }

    /// Device milliseconds at `uptime` (seconds).
    func millis(atUptime uptime: TimeInterval) -> Int64 {
        Self.millis(uptime).addingReportingOverflow(offsetMillis).partialValue
    }

    /// The record that starts every segment.
    var record: LogRecord { .clock(boot: boot ?? "", offsetMillis: offsetMillis, wallOffsetMillis: wallOffsetMillis) }

    private static func millis(_ seconds: TimeInterval) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64(max(-9e15, min(9e15, (seconds * 1000).rounded())))
    }
}
