import Foundation
import MetaRouterCore
import MetaRouterErrors

extension ErrorCapturePlugin {
    /// The `Application Crashed` event for a crash record read at this start, or `nil` when
    /// `beforeSendError` drops it. Its `messageId` is the record's identifier and its
    /// timestamp the crash time, so a record read twice (a start killed before it was done)
    /// makes the same event. Not subject to the per-minute limit: a start reads each record once.
    package func event(forCrash report: CrashReport, frames: StackFrames) -> Event? {
        let fingerprint = frames.fingerprint + "-" + report.signalName
        let address = "0x" + String(report.faultAddress, radix: 16)
        let error: [String: JSON] = [
            "type": .string(report.signalName), "message": .string(report.reason ?? "\(report.signalName): \(report.signalDescription)"),
            "domain": "signal", "code": .int(Int64(report.signal)),
        ]
        let properties: [String: JSON] = [
            "error": .object(error), "handled": false, "fingerprint": .string(fingerprint), "signal": .string(report.signalName),
            "faultAddress": .string(address), "frames": .array(frames.frames.map { .string($0) }),
            "breadcrumbs": .array(report.breadcrumbs.map(\.json)),
        ]
        let event = Event(
            type: .track, messageId: report.recordId.uuidString.lowercased(), timestamp: report.time, event: Self.crashEventName,
            properties: properties)
        return options.beforeSendError.map { $0(event) } ?? event
    }
}
