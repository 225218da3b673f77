import Foundation

extension AnalyticsClient {
    /// Records a user action.
    ///
    /// - Parameters:
    ///   - name: The action's name.
    ///   - properties: JSON-compatible values; one that is not is reported and dropped.
    ///   - options: Per-call identity, context, timestamp or destinations.
    package func track(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        guard acceptsEventName(name) else { return }
        guard let properties else { return admit(events.trackCommand(name, properties: nil, options: options), type: .track) }
        // Behind a backlog, the values are packed at once (`PackedTrackRun`).
        let hint = executor.seemsBehind
        if hint, options == nil {
            if let admission = executor.submitPacked(name: name, timestamp: events.now(), values: properties, problems: events.problems, hint: true) {
                return answer(admission, type: .track)
            }
            // Its values do not pack: it waits as it is, without asking again.
            return admit(events.trackCommand(name, properties: properties, options: nil), hint: true, type: .track)
        }
        admit(events.trackCommand(name, properties: properties, options: options), compacting: true, hint: hint, type: .track)
    }

    /// Records a user action with typed properties (any `Encodable` that encodes as an object).
    package func track<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        if let plain = PlainValues.dictionary(properties) { return track(name, properties: plain, options: options) }
        guard acceptsEventName(name) else { return }
        if let json = PlainValues.json(properties) {
            return process(events.attaching(json, to: events.track(name, properties: nil, options: options), target: .properties))
        }
        process(PreparedEvent(events.track(name, encodable: properties, options: options)))
    }

    /// Sets the current user and records their traits. Later events carry `userId`.
    ///
    /// - Parameters:
    ///   - userId: The user's id.
    ///   - traits: JSON-compatible traits.
    ///   - options: Per-call identity, context or timestamp.
    package func identify(_ userId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        guard acceptsIdentifier(userId, call: "identify") else { return }
        process(events.identify(userId, traits: traits, options: options))
    }

    /// Sets the current user with typed traits.
    package func identify<Traits: Encodable>(_ userId: String, traits: Traits, options: EventOptions? = nil) {
        if let plain = PlainValues.dictionary(traits) { return identify(userId, traits: plain, options: options) }
        guard acceptsIdentifier(userId, call: "identify") else { return }
        if let json = PlainValues.json(traits) {
            return process(events.attaching(json, to: events.identify(userId, traits: nil, options: options), target: .traits))
        }
        process(PreparedEvent(events.identify(userId, encodable: traits, options: options)))
    }

    /// Records a screen view; the name is sent as `name` and `properties.name`.
    ///
    /// - Parameters:
    ///   - name: The screen's name.
    ///   - properties: JSON-compatible properties.
    ///   - options: Per-call identity, context or timestamp.
    package func screen(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        process(events.view(.screen, name, properties: properties, options: options))
    }

    /// Records a screen view with typed properties.
    package func screen<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        if let plain = PlainValues.dictionary(properties) { return screen(name, properties: plain, options: options) }
        if let json = PlainValues.json(properties) {
            return process(events.attaching(json, to: events.view(.screen, name, properties: nil, options: options), target: .properties))
        }
        process(PreparedEvent(events.view(.screen, name, encodable: properties, options: options)))
    }

    /// Records a page view; the name is sent as `name` and `properties.name`.
    ///
    /// - Parameters:
    ///   - name: The page's name.
    ///   - properties: JSON-compatible properties.
    ///   - options: Per-call identity, context or timestamp.
    package func page(_ name: String, properties: [String: Any]? = nil, options: EventOptions? = nil) {
        process(events.view(.page, name, properties: properties, options: options))
    }

    /// Records a page view with typed properties.
    package func page<Properties: Encodable>(_ name: String, properties: Properties, options: EventOptions? = nil) {
        if let plain = PlainValues.dictionary(properties) { return page(name, properties: plain, options: options) }
        if let json = PlainValues.json(properties) {
            return process(events.attaching(json, to: events.view(.page, name, properties: nil, options: options), target: .properties))
        }
        process(PreparedEvent(events.view(.page, name, encodable: properties, options: options)))
    }

    /// Sets the current group and records its traits. Later events carry `groupId`.
    ///
    /// - Parameters:
    ///   - groupId: The group's id.
    ///   - traits: JSON-compatible traits.
    ///   - options: Per-call identity, context or timestamp.
    package func group(_ groupId: String, traits: [String: Any]? = nil, options: EventOptions? = nil) {
        guard acceptsIdentifier(groupId, call: "group") else { return }
        process(events.group(groupId, traits: traits, options: options))
    }

    /// Sets the current group with typed traits.
    package func group<Traits: Encodable>(_ groupId: String, traits: Traits, options: EventOptions? = nil) {
        if let plain = PlainValues.dictionary(traits) { return group(groupId, traits: plain, options: options) }
        guard acceptsIdentifier(groupId, call: "group") else { return }
        if let json = PlainValues.json(traits) {
            return process(events.attaching(json, to: events.group(groupId, traits: nil, options: options), target: .traits))
        }
        process(PreparedEvent(events.group(groupId, encodable: traits, options: options)))
    }

    /// Links the current identity to `newUserId` and makes it the current userId. The event's
    /// `previousId` is the userId before, or the anonymousId when there was none.
    ///
    /// - Parameters:
    ///   - newUserId: The user's new id.
    ///   - options: Per-call identity, context or timestamp.
    package func alias(_ newUserId: String, options: EventOptions? = nil) {
        guard acceptsIdentifier(newUserId, call: "alias") else { return }
        process(PreparedEvent(events.alias(newUserId, options: options)))
    }

    /// An empty or blank id would be carried on every later event: it is refused with a log
    /// line, and the identity stays as it was.
    private func acceptsIdentifier(_ id: String, call: String) -> Bool {
        guard id.isBlank else { return true }
        inputProblems.report(
            InputProblem(code: .emptyIdentifier, keyPath: call == "group" ? "groupId" : "userId",
                         message: "\(call) ignored: the id is empty; the current identity is kept"),
            call: call)
        return false
    }

    /// A track call needs a name: a blank one names nothing downstream.
    private func acceptsEventName(_ name: String) -> Bool {
        guard name.isBlank else { return true }
        inputProblems.report(
            InputProblem(code: .missingEventName, keyPath: "event", message: "track ignored: the event name is empty"), call: "track")
        return false
    }
}

/// The typed overloads' shortcuts for dictionary literals of plain values (`["path": path]` is
/// a `[String: String]`, so it picks the `Encodable` overload): no `JSONEncoder` runs on the
/// caller's thread (which cost a server about 8 µs per request).
enum PlainValues {
    /// Strings, integers and Booleans, converted at the call: each has one JSON form, so the
    /// values go straight to ``JSON`` without a pass through `[String: Any]`.
    static func json<Value: Encodable>(_ value: Value) -> [String: JSON]? {
        if Value.self == [String: String].self, let strings = value as? [String: String] { return strings.mapValues(JSON.string) }
        if Value.self == [String: Int].self, let integers = value as? [String: Int] { return integers.mapValues { .int(Int64($0)) } }
        if Value.self == [String: Bool].self, let flags = value as? [String: Bool] { return flags.mapValues(JSON.bool) }
        return nil
    }

    /// Doubles as `[String: Any]`, converted on the executor like any caller's values (a NaN or
    /// an infinity is reported and dropped there); `nil` for anything else. Exact type checks:
    /// no dynamic casts are tried.
    static func dictionary<Value: Encodable>(_ value: Value) -> [String: Any]? {
        if Value.self == [String: Double].self, let doubles = value as? [String: Double] { return doubles }
        return nil
    }
}
