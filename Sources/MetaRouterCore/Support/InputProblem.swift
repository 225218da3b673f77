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
    /// Problems a keeping reporter holds until it is bound, at most this many; the rest are
    /// logged where they are found, as before binding there is nowhere else to log them, and
    /// counted, for the successor's counts and one line in its log.
    static let maxKeptProblems = 1_000

    private struct State {
        var counts: [String: Int] = [:]
        /// For a keeping reporter (``init(keeping:)``) until ``handOver(to:)``: the problems
        /// found, with the call each came from (`nil`: counted, not logged).
        var kept: [(InputProblem, String?)]?
        /// Where every problem goes once ``handOver(to:)`` has run.
        var successor: InputProblemReporter?
    }

    private let logger: AnalyticsLogger
    private let callback: (@Sendable (InputProblem) -> Void)?
    private let state: Locked<State>

    /// A reporter that logs to `logger` and hands each problem to `callback`.
    ///
    /// - Parameters:
    ///   - logger: Where problems are logged.
    ///   - callback: The app's `onInvalidInput`, if any.
    package init(logger: AnalyticsLogger, callback: (@Sendable (InputProblem) -> Void)? = nil) {
        self.logger = logger
        self.callback = callback
        state = Locked(State())
    }

    /// A reporter for calls made before the options that say where problems go are known
    /// (`shared` before `initialize(with:)`): it keeps the problems (``maxKeptProblems`` at
    /// most, the rest logged to `logger`) until ``handOver(to:)`` reports them there.
    ///
    /// - Parameter logger: Where problems beyond the kept ones are logged.
    package init(keeping logger: AnalyticsLogger) {
        self.logger = logger
        callback = nil
        state = Locked(State(kept: []))
    }

    /// Reports the problems kept to `successor`, in the order found, and from now on hands it
    /// every problem. Those found beyond the ones kept (logged where they were found, and never
    /// given to a callback) join its counts, with one line in its log saying how many. Runs the
    /// successor's log sink and callback: not to be called under a lock.
    ///
    /// - Parameter successor: The reporter of the instance the calls went to.
    package func handOver(to successor: InputProblemReporter) {
        let (kept, beyond) = state.withLock { state -> ([(InputProblem, String?)], [String: Int]) in
            state.successor = successor
            guard let kept = state.kept else { return ([], [:]) }
            let beyond = state.counts
            state.kept = nil
            state.counts = [:]
            return (kept, beyond)
        }
        for (problem, call) in kept {
            if let call { successor.report(problem, call: call) } else { successor.count(problem) }
        }
        successor.add(beyondKept: beyond)
    }

    /// Counts the problems a keeping reporter found beyond those it kept, and says so once.
    private func add(beyondKept counts: [String: Int]) {
        guard !counts.isEmpty else { return }
        state.withLock { state in
            for (code, count) in counts { state.counts[code, default: 0] += count }
        }
        let total = counts.values.reduce(0, +)
        let codes = counts.keys.sorted().map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ")
        logger.warning(
            "sdk.invalid_input: \(total) more problems were found in calls made before this instance was bound than the "
                + "\(Self.maxKeptProblems) kept for it; they went to the log in force then (standard error by default), "
                + "not to onInvalidInput, and are counted here (\(codes))")
    }

    /// Where `problem` goes: `nil` when it is kept or counted here, else the successor.
    private func take(_ problem: InputProblem, call: String?) -> (kept: Bool, successor: InputProblemReporter?) {
        state.withLock { state in
            if let successor = state.successor { return (false, successor) }
            if state.kept != nil, state.kept.unsafelyUnwrapped.count < Self.maxKeptProblems {
                state.kept?.append((problem, call))
                return (true, nil)
            }
            state.counts[problem.code.rawValue, default: 0] += 1
            return (false, nil)
        }
    }

    /// Logs `problem` (prefixed by the call it came from), counts it and hands it to the
    /// callback. `call` is a plain string: it is made only where a problem is found, and as an
    /// autoclosure it would have this function copied, with its log line, for each caller.
    package func report(_ problem: InputProblem, call: String) {
        // A `fork()` child takes none of the parent's locks; its calls are dropped anyway.
        guard !ForkGuard.isChild else { return }
        let taken = take(problem, call: call)
        if let successor = taken.successor { return successor.report(problem, call: call) }
        guard !taken.kept else { return }
        logger.warning("sdk.invalid_input: \(call): \(problem)")
        callback?(problem)
    }

    /// Counts `problem` and hands it to the callback without a log line, for a caller that
    /// logs it its own (throttled) way.
    package func count(_ problem: InputProblem) {
        guard !ForkGuard.isChild else { return }
        let taken = take(problem, call: nil)
        if let successor = taken.successor { return successor.count(problem) }
        guard !taken.kept else { return }
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
        for (rawValue, count) in state.withLock({ $0.counts }) {
            if let code = InputProblem.Code(rawValue: rawValue) { byCode[code] = count }
        }
        return byCode
    }
}
