import Foundation

/// Something a call passed that the SDK could not use as given, with a stable code a team can
/// count and alert on. The value (or the call) is dropped; the rest of the event is kept. It
/// prints as `code: message`.
public struct InputProblem: Sendable, Hashable, CustomStringConvertible {
    /// The stable codes, as the seed's SDK names them.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `track` with an empty or blank event name: the call is dropped.
        case missingEventName = "missing_event_name"
        /// `identify`, `group` or `alias` with an empty or blank id: the call is dropped.
        case emptyIdentifier = "empty_identifier"
        /// A value nested deeper than the converter's limit: that value is dropped.
        case propertiesTooDeep = "event_properties_too_deep"
        /// A value of a type JSON cannot carry, or one that failed to encode: dropped.
        case propertyNotEncodable = "event_property_not_encodable"
        /// NaN or an infinity: dropped.
        case propertyNotFinite = "event_property_not_finite"
        /// A dictionary key that is not a string: that entry is dropped.
        case propertyKeyNotString = "event_property_key_not_string"
        /// In per-call identity mode, an event with neither userId nor anonymousId: dropped.
        case eventWithoutIdentity = "event_without_identity"
        /// A per-call timestamp that is NaN, infinite or outside years 0000–9999: the time of the
        /// call is used instead.
        case invalidTimestamp = "event_timestamp_invalid"
    }

    /// What is wrong.
    public var code: Code
    /// Where: a key path such as `properties.items[2].price`, or the call's field.
    public var keyPath: String
    /// In words.
    public var message: String

    /// A problem.
    package init(code: Code, keyPath: String, message: String) {
        self.code = code
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// Where input problems go: a warning in the log, a count per code, and the app's
/// `onInvalidInput` callback. Thread-safe: problems are found on callers' threads and on the
/// executor.
package final class InputProblemReporter: Sendable {
    private let logger: AnalyticsLogger
    private let callback: (@Sendable (InputProblem) -> Void)?
    /// Per code, by its raw value: a dictionary keyed by the code itself would cost the thread
    /// that makes an instance a lookup of the code's `Hashable` conformance across every loaded
    /// image, the first time in a process.
    private let counts = Locked<[String: Int]>([:])

    /// A reporter logging to `logger` and calling `callback` with every problem.
    package init(logger: AnalyticsLogger, callback: (@Sendable (InputProblem) -> Void)? = nil) {
        self.logger = logger
        self.callback = callback
    }

    /// Logs `problem` (prefixed by the call it came from), counts it and hands it to the
    /// callback. `call` is a plain string: it is made only where a problem is found, and as an
    /// autoclosure it would have this function copied, with its log line, for each caller.
    package func report(_ problem: InputProblem, call: String) {
        counts.withLock { $0[problem.code.rawValue, default: 0] += 1 }
        logger.warning("sdk.invalid_input: \(call): \(problem)")
        callback?(problem)
    }

    /// Counts `problem` and hands it to the callback without a log line, for a caller that
    /// logs it its own (throttled) way.
    package func count(_ problem: InputProblem) {
        counts.withLock { $0[problem.code.rawValue, default: 0] += 1 }
        callback?(problem)
    }

    /// `values` converted to JSON, each value that cannot be reported (prefixed by `call`).
    package func converted(_ values: [String: Any], root: String, call: String) -> [String: JSON] {
        let (converted, issues) = ValueConverter.convert(values, root: root)
        for issue in issues { report(issue.problem, call: call) }
        return converted
    }

    /// Problems reported so far, per code.
    package var countsByCode: [InputProblem.Code: Int] {
        var byCode: [InputProblem.Code: Int] = [:]
        for (rawValue, count) in counts.current {
            if let code = InputProblem.Code(rawValue: rawValue) { byCode[code] = count }
        }
        return byCode
    }
}
