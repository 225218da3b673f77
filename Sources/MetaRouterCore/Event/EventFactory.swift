import Foundation

/// Builds events at the call site: captures the timestamp and messageId, applies per-call
/// overrides and captures the caller's values, which ``PreparedEvent/resolved()`` converts to
/// ``JSON`` on the executor (logging each value it has to drop, by key path). Typed
/// (`Encodable`) values are encoded here, at the call. Nothing here touches disk or network.
package struct EventFactory: Sendable {
    private let clock: any AnalyticsClock
    /// Where the values a call's event drops are reported.
    let problems: InputProblemReporter

    /// A factory stamping times from `clock` and reporting dropped values to `problems`.
    package init(clock: any AnalyticsClock, problems: InputProblemReporter) {
        self.clock = clock
        self.problems = problems
    }

    /// A track event.
    package func track(_ name: String, properties: [String: Any]?, options: EventOptions?) -> PreparedEvent {
        PreparedEvent(base(.track, options, drawsMessageIdLater: true, eventName: name), values: properties, target: .properties, problems: problems)
    }

    /// A track call for the ingress: the call itself (``TrackCall``, no event made at the call)
    /// when it has no options and its values may be captured as they are, else its event. The
    /// values are looked at once.
    package func trackCommand(_ name: String, properties: [String: Any]?, options: EventOptions?) -> Command {
        let plain = properties.map(PendingValues.allPlain) ?? true
        guard options == nil, plain else {
            let event = base(.track, options, drawsMessageIdLater: true, eventName: name)
            return .event(PreparedEvent(event, values: properties, plain: plain, target: .properties, problems: problems))
        }
        return .track(TrackCall(name: name, timestamp: clock.now(), values: properties, problems: problems))
    }

    /// The time a call made now is stamped with.
    func now() -> Date { clock.now() }

    /// `prepared`, a call's event made without values, with `values` (already converted) to
    /// merge into its properties or traits.
    func attaching(_ values: [String: JSON], to prepared: PreparedEvent, target: PreparedEvent.Target) -> PreparedEvent {
        PreparedEvent(prepared.event, converted: values, target: target, problems: problems)
    }

    /// A track event with typed properties.
    package func track<Properties: Encodable>(_ name: String, encodable properties: Properties, options: EventOptions?) -> Event {
        var event = base(.track, options, eventName: name)
        (event.properties, event.droppedAtCall) = convert(encodable: properties, root: "properties", call: "track \"\(name)\"")
        return event
    }

    /// An identify event.
    package func identify(_ userId: String, traits: [String: Any]?, options: EventOptions?) -> PreparedEvent {
        var event = base(.identify, options, drawsMessageIdLater: true)
        event.userId = userId
        event.traits = [:]
        return PreparedEvent(event, values: traits, target: .traits, problems: problems)
    }

    /// An identify event with typed traits.
    package func identify<Traits: Encodable>(_ userId: String, encodable traits: Traits, options: EventOptions?) -> Event {
        var event = base(.identify, options)
        event.userId = userId
        let (traits, dropped) = convert(encodable: traits, root: "traits", call: "identify")
        (event.traits, event.droppedAtCall) = (traits ?? [:], dropped)
        return event
    }

    /// A screen or page event; the name goes to `name` and `properties.name`.
    package func view(_ type: EventType, _ name: String, properties: [String: Any]?, options: EventOptions?) -> PreparedEvent {
        PreparedEvent(view(type, name, nil, options, drawsMessageIdLater: true), values: properties, target: .properties, problems: problems)
    }

    /// A screen or page event with typed properties.
    package func view<Properties: Encodable>(_ type: EventType, _ name: String, encodable properties: Properties, options: EventOptions?) -> Event {
        let (members, dropped) = convert(encodable: properties, root: "properties", call: "\(type.rawValue) \"\(name)\"")
        var event = view(type, name, members, options)
        event.droppedAtCall = dropped
        return event
    }

    /// A group event.
    package func group(_ groupId: String, traits: [String: Any]?, options: EventOptions?) -> PreparedEvent {
        var event = base(.group, options, drawsMessageIdLater: true)
        event.groupId = groupId
        event.traits = [:]
        return PreparedEvent(event, values: traits, target: .traits, problems: problems)
    }

    /// A group event with typed traits.
    package func group<Traits: Encodable>(_ groupId: String, encodable traits: Traits, options: EventOptions?) -> Event {
        var event = base(.group, options)
        event.groupId = groupId
        let (traits, dropped) = convert(encodable: traits, root: "traits", call: "group")
        (event.traits, event.droppedAtCall) = (traits ?? [:], dropped)
        return event
    }

    /// An alias event; the identity plugin fills `previousId`.
    package func alias(_ newUserId: String, options: EventOptions?) -> Event {
        var event = base(.alias, options)
        event.userId = newUserId
        return event
    }

    /// The event's common fields (and a track's event name), set in one go. With
    /// `drawsMessageIdLater`, its messageId is left empty for ``PreparedEvent/resolved()`` to
    /// draw on the executor: formatting it is a third of what a call costs its caller.
    private func base(_ type: EventType, _ options: EventOptions?, drawsMessageIdLater: Bool = false, eventName: String? = nil) -> Event {
        Event(
            type: type, messageId: drawsMessageIdLater ? "" : nil, timestamp: timestamp(type, options?.timestamp),
            anonymousId: options?.anonymousId, userId: options?.userId, event: eventName,
            context: options?.context.map { checked($0, root: "context", call: "\(type.rawValue) call") } ?? [:],
            integrations: options?.integrations.map { checked($0, root: "integrations", call: "\(type.rawValue) call") })
    }

    /// An event handed over whole (`process`), without the values JSON cannot carry or the
    /// writer must not walk (nested deeper than 32 levels, non-finite numbers), each reported.
    package func checked(_ event: Event) -> Event {
        var event = event
        let call = "process \(event.type.rawValue)"
        if let properties = event.properties { event.properties = checked(properties, root: "properties", call: call) }
        if let traits = event.traits { event.traits = checked(traits, root: "traits", call: call) }
        event.context = checked(event.context, root: "context", call: call)
        if let integrations = event.integrations { event.integrations = checked(integrations, root: "integrations", call: call) }
        return event
    }

    private func checked(_ members: [String: JSON], root: String, call: @autoclosure () -> String) -> [String: JSON] {
        let (value, issues) = ValueConverter.checked(members, root: root)
        report(issues, call: call())
        return value
    }

    /// The caller's timestamp when it can be written, else the time of the call (reported).
    private func timestamp(_ type: EventType, _ given: Date?) -> Date {
        guard let given else { return clock.now() }
        guard Timestamp.isWritable(given) else {
            problems.report(
                InputProblem(code: .invalidTimestamp, keyPath: "timestamp",
                             message: "timestamp \(given.timeIntervalSince1970) s since 1970 is not a date between years 0000 and 9999; the time of the call is used"),
                call: "\(type.rawValue) call")
            return clock.now()
        }
        return given
    }

    private func view(_ type: EventType, _ name: String, _ properties: [String: JSON]?, _ options: EventOptions?, drawsMessageIdLater: Bool = false) -> Event {
        var event = base(type, options, drawsMessageIdLater: drawsMessageIdLater)
        event.name = name
        var merged = properties ?? [:]
        merged["name"] = .string(name)
        event.properties = merged
        return event
    }

    /// `encodable` as JSON members, and what could not be sent (reported here), for
    /// ``Event/droppedAtCall``.
    private func convert<Value: Encodable>(encodable: Value, root: String, call: @autoclosure () -> String) -> ([String: JSON]?, [String: String]) {
        let (converted, issues) = ValueConverter.convert(encodable: encodable, root: root)
        report(issues, call: call())
        return (converted, issues.isEmpty ? [:] : ConversionIssue.byKeyPath(issues))
    }

    private func report(_ issues: [ConversionIssue], call: @autoclosure () -> String) {
        for issue in issues { problems.report(issue.problem, call: call()) }
    }
}
