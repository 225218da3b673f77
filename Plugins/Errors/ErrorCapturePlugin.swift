import Foundation
import MetaRouterCore

/// What an error is reduced to at the call, so that it can cross to the executor: its type,
/// message and, bridged to `NSError`, domain and code.
package struct CapturedError: Sendable, Hashable {
    /// The error's type, e.g. `MyApp.PaymentError`.
    package var type: String
    /// `localizedDescription`.
    package var message: String
    /// The `NSError` domain.
    package var domain: String
    /// The `NSError` code.
    package var code: Int

    /// The description of `error`.
    package init(_ error: any Error) {
        // A type declared in a function or as `private` prints with the address of its
        // context, which moves from launch to launch: it is left out.
        type = String(reflecting: Swift.type(of: error))
            .replacingOccurrences(of: "\\(unknown context at \\$[0-9a-f]+\\)\\.", with: "", options: .regularExpression)
        message = error.localizedDescription
        let bridged = error as NSError
        domain = bridged.domain
        code = bridged.code
    }
}

/// The limits and the app's hook.
public struct ErrorCaptureOptions: Sendable {
    /// Error events sent per minute at most (default 30).
    public var maxEventsPerMinute = 30
    /// Seconds during which a fingerprint already sent is counted, not sent again (60).
    public var repeatWindow: TimeInterval = 60
    /// Changes or drops (`nil`) an error event before it is queued.
    public var beforeSendError: (@Sendable (Event) -> Event?)?

    /// The defaults.
    ///
    /// - Parameters:
    ///   - maxEventsPerMinute: Error events sent per minute at most.
    ///   - repeatWindow: Seconds in which the same fingerprint is sent once.
    ///   - beforeSendError: Changes or drops (`nil`) each report before it is sent.
    public init(maxEventsPerMinute: Int = 30, repeatWindow: TimeInterval = 60, beforeSendError: (@Sendable (Event) -> Event?)? = nil) {
        self.maxEventsPerMinute = maxEventsPerMinute
        self.repeatWindow = repeatWindow
        self.beforeSendError = beforeSendError
    }
}

/// Turns a caught error into an `Error Captured` track event — its type, message (and
/// `domain` / `code` for an `NSError`), whether it was handled, a fingerprint, the stack frames
/// and the breadcrumbs — and decides whether it is sent: the errors consent channel (read from
/// the event's gate at capture), `beforeSendError`, at most ``Options/maxEventsPerMinute``
/// error events per minute, and one event per fingerprint per ``Options/repeatWindow`` (later
/// repeats are counted, and the next event sent for it says how many). A utility plugin: it
/// sees no events; `captureError` calls it on the executor.
///
/// The SDK never captures its own failures (an upload that failed is delivery's business):
/// only the app's calls make error events, so there is no feedback loop.
package final class ErrorCapturePlugin: Plugin {
    package typealias Options = ErrorCaptureOptions

    /// The event name of a handled error.
    package static let eventName = "Error Captured"

    /// Sees no events.
    package let type = PluginType.utility
    /// The options.
    package let options: Options
    /// Error events not sent because of the per-minute limit or as repeats.
    package private(set) var suppressed = 0
    private var sentInWindow: [Date] = []
    private var lastSent: [String: (at: Date, repeats: Int)] = [:]

    /// A plugin with `options`.
    package init(options: Options = Options()) {
        self.options = options
    }

    /// The event for `error`, or `nil` when it is not to be sent. `breadcrumbs` are the trail
    /// as it is now; `now` is the capture time.
    package func event(
        for error: CapturedError, handled: Bool, properties: [String: JSON], frames: StackFrames, breadcrumbs: [Breadcrumb], now: Date
    ) -> Event? {
        let fingerprint = frames.fingerprint + "-" + error.type
        if let previous = lastSent[fingerprint], now.timeIntervalSince(previous.at) < options.repeatWindow {
            lastSent[fingerprint] = (previous.at, previous.repeats + 1)
            suppressed += 1
            return nil
        }
        sentInWindow.removeAll { now.timeIntervalSince($0) >= 60 }
        guard sentInWindow.count < options.maxEventsPerMinute else {
            suppressed += 1
            return nil
        }
        var fields = properties
        fields["error"] = [
            "type": .string(error.type), "message": .string(error.message), "domain": .string(error.domain), "code": .int(Int64(error.code)),
        ]
        fields["handled"] = .bool(handled)
        fields["fingerprint"] = .string(fingerprint)
        fields["frames"] = .array(frames.frames.map { .string($0) })
        fields["breadcrumbs"] = .array(breadcrumbs.map(\.json))
        if let repeats = lastSent[fingerprint]?.repeats, repeats > 0 { fields["repeatsSinceLastReport"] = .int(Int64(repeats)) }
        var event = Event(type: .track, timestamp: now, event: Self.eventName, properties: fields)
        if let hook = options.beforeSendError {
            guard let changed = hook(event) else { return nil }
            event = changed
        }
        sentInWindow.append(now)
        lastSent[fingerprint] = (now, 0)
        if lastSent.count > 1024 { lastSent = lastSent.filter { now.timeIntervalSince($0.value.at) < options.repeatWindow } }
        return event
    }

    /// The event name of a crash reported at the next start.
    package static let crashEventName = "Application Crashed"

    /// A logout forgets the repeat counts.
    package func reset() {
        lastSent = [:]
    }
}
