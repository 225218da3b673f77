#if Signals
import Foundation

/// Signals: the methods the `Signals` trait adds.
extension Analytics {
    /// Adds a signal to the buffer (with `InitOptions.signals` set), in order with this
    /// thread's other calls; the generators run on the executor. See `Docs/Signals.md`.
    ///
    /// - Parameter signal: The signal.
    public func emit(_ signal: SignalContent) {
        let engine = engine
        let now = engine.configuration.clock.now()
        let checked = bounded(signal, problems: engine.inputProblems)
        engine.performCall("emit call") { timeline in self.pillars(timeline).signals?(timeline).add(checked, at: now, timeline: timeline) }
    }

    /// The signal with its app-given JSON held to the depth limit of properties: what is
    /// nested deeper is reported (``InitOptions/onInvalidInput``) and left out.
    private func bounded(_ signal: SignalContent, problems: InputProblemReporter) -> SignalContent {
        func object(_ data: [String: JSON]) -> [String: JSON] {
            problems.converted(data.mapValues { $0 as Any }, root: "data", call: "emit")
        }
        func value(_ data: JSON?) -> JSON? {
            data.map { object(["value": $0])["value"] ?? .null }
        }
        switch signal {
        case .navigation: return signal
        case .interaction(let component, let title, let data): return .interaction(component: component, title: title, data: data.map(object))
        case .network(let action, let url, let statusCode, let data): return .network(action, url: url, statusCode: statusCode, data: value(data))
        case .localData(let action, let identifier, let data): return .localData(action, identifier: identifier, data: value(data))
        case .userDefined(let data): return .userDefined(object(data))
        }
    }

    /// Adds a user-defined signal whose data is `value` encoded as a JSON object; what does not
    /// encode is reported (`InitOptions.onInvalidInput`) and left out, and a value that is not
    /// a JSON object at all emits nothing.
    ///
    /// - Parameter value: A value that encodes as a JSON object.
    public func emit<Data: Encodable>(userDefined value: Data) {
        if let signal = SignalContent.userDefined(encoding: value, problems: engine.inputProblems) { emit(signal) }
    }
}

extension SignalContent {
    /// A user-defined signal whose data is `value` encoded as JSON; what does not encode is
    /// reported to `problems` and left out; `nil` when `value` is not a JSON object at all.
    static func userDefined<Data: Encodable>(encoding value: Data, problems: InputProblemReporter) -> SignalContent? {
        let (data, issues) = ValueConverter.convert(encodable: value, root: "data")
        for issue in issues { problems.report(issue.problem, call: "emit") }
        guard issues.isEmpty || !data.isEmpty else { return nil }
        return .userDefined(data)
    }
}

#if Rules
extension SignalGenerator {
    /// Generators written in the rule language (`generator "…" { on … find … track … set … }`,
    /// see `Docs/Signals.md`), as one generator that runs them in order.
    ///
    /// - Parameter text: Generators in the rule language.
    /// - Returns: A generator that runs them.
    /// - Throws: ``RuleLoadError`` at the line and column where the text stops making sense.
    public static func rules(_ text: String) throws(RuleLoadError) -> SignalGenerator {
        let rules: [GeneratorRule]
        do {
            rules = try GeneratorRuleParser.parse(text)
        } catch {
            throw RuleLoadError(error)
        }
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
#endif
#endif
