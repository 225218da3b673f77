import Foundation

/// An event as the call site hands it over: complete except for the caller's `[String: Any]`
/// values, which are converted to ``JSON`` on the executor rather than on the caller's thread.
///
/// Converting five properties costs about as much as the rest of the call together, so the
/// caller only captures the dictionary (a value; later changes to the caller's variable do not
/// reach it). Values that are class instances the caller keeps mutating after the call are the
/// one thing this cannot protect; pass immutable values.
public struct PreparedEvent: Sendable {
    /// Which field the unconverted values become.
    enum Target: Sendable {
        case properties
        case traits
    }

    /// The event, without the values still to convert.
    public private(set) var event: Event
    private let pending: PendingValues?

    /// An event with nothing left to convert.
    public init(_ event: Event) {
        self.event = event
        pending = nil
    }

    init(_ event: Event, values: [String: Any]?, target: Target, logger: Logger) {
        self.event = event
        pending = values.map { PendingValues(values: $0, target: target, logger: logger) }
    }

    /// The complete event: converts the pending values (logging each one dropped, by key
    /// path) and merges them in.
    public func resolved() -> Event {
        guard let pending else { return event }
        var event = event
        let root = pending.target == .properties ? "properties" : "traits"
        let (converted, issues) = ValueConverter.convert(pending.values, root: root)
        for issue in issues {
            pending.logger.warning("\(event.type.rawValue)\((event.event ?? event.name).map { " \"\($0)\"" } ?? ""): \(issue)")
        }
        switch pending.target {
        case .properties: event.properties = converted.merging(event.properties ?? [:]) { _, fixed in fixed }
        case .traits: event.traits = converted.merging(event.traits ?? [:]) { _, fixed in fixed }
        }
        return event
    }
}

/// The caller's values on their way to the executor.
private struct PendingValues: @unchecked Sendable {  // the caller hands the dictionary over at the call; it is read once, on the executor
    let values: [String: Any]
    let target: PreparedEvent.Target
    let logger: Logger
}
