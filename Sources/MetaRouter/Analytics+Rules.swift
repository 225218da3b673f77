#if Rules
import Foundation

/// Remote and local rule sets: the method the `Rules` trait adds.
extension Analytics {
    /// Parses `text` (rule text, our JSON, or Segment settings) and, when it loads, swaps it in
    /// for every ``TransformPlugin`` of this instance whose rule set is called `name`, between
    /// two events. A text that does not load is rejected with its error and the old rules stay.
    ///
    /// - Parameters:
    ///   - name: The rule set's name.
    ///   - text: The new rule set; it must carry a higher `version`.
    /// - Throws: The error that says where and why `text` does not load.
    public func replaceRules(named name: String, with text: String) throws {
        let rules = try RuleSetLoader.load(text)
        engine.performCall("replaceRules call") { timeline in
            for plugin in timeline.findAll(TransformPlugin.self) where plugin.ruleSet.name == name { plugin.replace(with: rules) }
        }
    }
}
#endif
