import Foundation

/// An event as the call site hands it over: complete except, usually, for the caller's
/// `[String: Any]` values, which are converted to ``JSON`` on the executor rather than on the
/// caller's thread.
///
/// Converting five properties costs about as much as the rest of the call together, so when
/// every value is a plain value (a string, a number, a Boolean, a date, or a Swift dictionary or
/// array of them) the caller only captures the dictionary — a value: later changes to the
/// caller's variable do not reach it. Anything else (an `NSMutableDictionary`, or any class
/// instance the caller could go on mutating) is converted at the call, so the executor never
/// reads memory the caller still owns.
package struct PreparedEvent: Sendable {
    /// Which field the unconverted values become.
    enum Target: Sendable {
        case properties
        case traits
    }

    /// The event, without the values still to convert. An event from ``EventFactory`` has an
    /// empty `messageId` here: it is drawn by ``resolved()``, on the executor.
    package private(set) var event: Event
    private let pending: PendingValues?

    /// An event with nothing left to convert.
    package init(_ event: Event) {
        self.event = event
        pending = nil
    }

    /// Built by ``EventFactory``: `event` has no messageId yet.
    init(_ event: Event, values: [String: Any]?, target: Target, problems: InputProblemReporter) {
        self.init(event, values: values, plain: values.map(PendingValues.allPlain) ?? true, target: target, problems: problems)
    }

    /// Built for values already looked at: `plain` when ``PendingValues/allPlain(_:)`` holds
    /// for them, so they are captured; otherwise they are converted now.
    init(_ event: Event, values: [String: Any]?, plain: Bool, target: Target, problems: InputProblemReporter) {
        self.event = event
        pending = values.map { values in
            let root = target == .properties ? "properties" : "traits"
            let content: PendingValues.Content = plain ? .deferred(values) : .converted(ValueConverter.convert(values, root: root))
            return PendingValues(content: content, target: target, problems: problems)
        }
    }

    /// Built by ``EventFactory`` for values the call site already converted (``PlainValues``):
    /// they merge in as the caller's values would, with nothing to report.
    init(_ event: Event, converted values: [String: JSON], target: Target, problems: InputProblemReporter) {
        self.event = event
        pending = PendingValues(content: .converted((values, [])), target: target, problems: problems)
    }

    /// The complete event: draws its messageId when it has none (each call draws a new one:
    /// the executor resolves an event once), converts the pending values (reporting each one
    /// dropped, by key path and code) and merges them in. Consumes the prepared event, so the
    /// event is completed in place rather than copied.
    package consuming func resolved() -> Event {
        if event.messageId.isEmpty { event.messageId = MessageID.make(at: event.timestamp) }
        guard let pending else { return event }
        let root = pending.target == .properties ? "properties" : "traits"
        let (converted, issues): ([String: JSON], [ConversionIssue])
        switch pending.content {
        case .deferred(let values): (converted, issues) = ValueConverter.convert(values, root: root)
        case .converted(let result): (converted, issues) = result
        }
        for issue in issues {
            pending.problems.report(issue.problem, call: "\(event.type.rawValue)\((event.event ?? event.name).map { " \"\($0)\"" } ?? "")")
        }
        if !issues.isEmpty { event.droppedAtCall = ConversionIssue.byKeyPath(issues) }
        // Values the event already has (a screen's `name`) win over the caller's.
        switch pending.target {
        case .properties: event.properties = Self.merge(converted, under: event.properties)
        case .traits: event.traits = Self.merge(converted, under: event.traits)
        }
        return event
    }

    private static func merge(_ converted: [String: JSON], under fixed: [String: JSON]?) -> [String: JSON] {
        guard let fixed, !fixed.isEmpty else { return converted }
        return converted.merging(fixed) { _, fixed in fixed }
    }
}

/// The caller's values on their way to the executor.
struct PendingValues: @unchecked Sendable {  // `.deferred` holds only value types and immutable numbers (see `allPlain`)
    enum Content {
        /// Plain values only, converted later on the executor.
        case deferred([String: Any])
        /// Converted at the call, with what was dropped.
        case converted((value: [String: JSON], issues: [ConversionIssue]))
    }

    let content: Content
    let target: PreparedEvent.Target
    let problems: InputProblemReporter

    /// Whether every value is a Swift value type of a few common kinds, an `NSNumber`
    /// (immutable), or a Swift dictionary or array holding only such values, nested at most
    /// ``plainNesting`` levels: nothing the caller can change after the call. (A Swift
    /// collection is a value; one bridged from Foundation is an immutable copy, and its members
    /// come back as Foundation objects, which are not plain.) Exact metatype checks only, so the
    /// test costs a few nanoseconds per value.
    static func allPlain(_ values: [String: Any]) -> Bool {
        values.values.allSatisfy { isPlain($0, depth: 1) }
    }

    /// Collections nested deeper than this are converted at the call.
    static let plainNesting = 4

    /// Whether `value` may wait unconverted. Called with an `Any`, its type is opened from the
    /// box: the checks compare the type the box holds, and a collection is read as itself, not
    /// through a dynamic cast (`type(of:)` and `as? [String: Any]` cost more than the rest of
    /// such a call). A class instance is judged by the type it was boxed as: an `NSNumber`
    /// passed as an `NSObject` is not plain, and is converted at the call — always safe, only
    /// slower.
    private static func isPlain<Value>(_ value: Value, depth: Int) -> Bool {
        let valueType = Value.self
        if valueType == String.self || valueType == Int.self || valueType == Double.self || valueType == Bool.self || valueType == Int64.self
            || valueType == Float.self || valueType == Date.self
        {
            return true
        }
        if valueType == [String: Any].self {
            guard depth < plainNesting else { return false }
            return unsafeBitCast(value, to: [String: Any].self).values.allSatisfy { isPlain($0, depth: depth + 1) }
        }
        if valueType == [Any].self {
            guard depth < plainNesting else { return false }
            return unsafeBitCast(value, to: [Any].self).allSatisfy { isPlain($0, depth: depth + 1) }
        }
        // Homogeneous literals (`["a", "b"]`, `["size": "42"]`) are typed collections of plain values.
        if valueType == [String].self || valueType == [Int].self || valueType == [Double].self || valueType == [Bool].self
            || valueType == [String: String].self || valueType == [String: Int].self || valueType == [String: Double].self
        {
            return depth < plainNesting
        }
        return valueType is NSNumber.Type
    }
}
