import Foundation

extension MetaRouterClient {
    /// Adds a signal to the buffer (with ``InitOptions/signals`` set), in order with this
    /// thread's other calls; the generators run on the executor. See `Docs/Signals.md`.
    public func emit(_ signal: SignalContent) {
        let now = client.configuration.clock.now()
        client.perform { timeline in timeline.find(SignalsPlugin.self)?.add(signal, at: now, timeline: timeline) }
    }

    /// Adds a user-defined signal whose data is `value` encoded as JSON; what does not encode
    /// is reported (``InitOptions/onInvalidInput``) and left out, and a value that is not a JSON
    /// object at all emits nothing.
    public func emit<Data: Encodable>(userDefined value: Data) {
        let (data, issues) = ValueConverter.convert(encodable: value, root: "data")
        for issue in issues { client.inputProblems.report(issue.problem, call: "emit") }
        guard issues.isEmpty || !data.isEmpty else { return }
        emit(.userDefined(data))
    }
}

extension SignalGenerator {
    /// Generators written in the rule language (`generator "…" { on … find … track … set … }`,
    /// see ``GeneratorRule``), as one generator that runs them in order.
    public static func rules(_ text: String) throws(RuleParseError) -> SignalGenerator {
        let rules = try GeneratorRuleParser.parse(text)
        return SignalGenerator(name: rules.map(\.name).joined(separator: ", ")) { signal, buffer in
            let json = signal.json
            return rules.compactMap { rule in
                rule.event(for: json, at: signal.timestamp) { type, predicate in
                    guard let type = SignalType(rawValue: type) else { return nil }
                    return buffer.find(before: signal, type: type) { predicate($0.json) }?.json
                }
            }
        }
    }
}
