import Foundation
import MetaRouterCore

/// Runs a rule set as a plugin at any stage (`before`, `enrichment`, `after`), globally or in one
/// destination's sub-timeline (give `destinationKey`, so rules limited to that destination
/// apply). The rule set can be replaced at run time: the swap happens on the executor, between
/// two events, so no event ever sees half a rule set. A rule that fails is logged once (by name)
/// and handled per the rule set's failure policy.
public final class TransformPlugin: Plugin {
    public let type: PluginType
    /// The destination it serves, when it sits in one's sub-timeline.
    package let destinationKey: String?
    /// The rules in force.
    package private(set) var ruleSet: RuleSet
    private weak var analytics: AnalyticsClient?
    private let reported = Locked<Set<String>>([])

    /// Runs `ruleSet` at `stage`.
    ///
    /// - Parameters:
    ///   - ruleSet: The rules.
    ///   - stage: The stage the plugin runs in.
    ///   - destinationKey: The destination the rules are for, when added inside one.
    public init(ruleSet: RuleSet, stage: PluginType = .enrichment, destinationKey: String? = nil) {
        self.ruleSet = ruleSet
        type = stage
        self.destinationKey = destinationKey
    }

    public func configure(analytics: AnalyticsClient) { self.analytics = analytics }

    public func execute(event: Event) -> Event? {
        ruleSet.apply(to: event, destination: destinationKey, onStep: nil, onFailure: { [weak self] rule, error in
            self?.reportOnce(rule, error)
        })
    }

    /// Replaces the rules if `newRules` has a higher version; returns whether it did. Call on
    /// the executor — ``replace(in:named:with:)`` does; debug builds check that.
    @discardableResult
    package func replace(with newRules: RuleSet) -> Bool {
        analytics?.assertOnExecutor()
        guard newRules.version > ruleSet.version else {
            analytics?.logger.warning("sdk.rules_not_newer: rule set \"\(ruleSet.name)\": version \(newRules.version) is not newer than \(ruleSet.version); kept")
            return false
        }
        ruleSet = newRules
        reported.withLock { $0.removeAll() }
        return true
    }

    /// Parses `text` (rule text, our JSON, or Segment settings) and, when it loads, swaps it in
    /// for every transform plugin of `analytics` whose rule set is called `name`. A text that
    /// does not load is rejected with its error and the old rules stay. Apps call
    /// `Analytics.replaceRules(named:with:)`.
    package static func replace(in analytics: AnalyticsClient, named name: String, with text: String) throws {
        let newRules = try RuleSetLoader.load(text)
        analytics.perform { timeline in
            for plugin in timeline.findAll(TransformPlugin.self) where plugin.ruleSet.name == name {
                plugin.replace(with: newRules)
            }
        }
    }

    private func reportOnce(_ rule: Rule, _ error: RuleRuntimeError) {
        let first = reported.withLock { $0.insert(rule.name).inserted }
        guard first else { return }
        let outcome = ruleSet.failurePolicy == .open ? "events pass unchanged by it" : "events it fails on are dropped"
        analytics?.logger.warning("sdk.rule_failed: rule \"\(rule.name)\" could not be applied (\(error.message)); \(outcome)")
    }
}

/// The three formats a rule set comes in.
public enum RuleFormat: String, Sendable, CaseIterable {
    /// The rule text syntax.
    case text
    /// Our JSON form.
    case json
    /// Segment destination-filter settings.
    case segment
}

/// Loads rule sets from text in any of the three formats.
public enum RuleSetLoader {
    /// Loads `text` in `format`, or detects the format: JSON with `rules` is ours, JSON with
    /// `routingRules` is Segment's, anything else is rule text. A set beyond the limits on
    /// rules and `match` patterns (`Docs/TransformRules.md`) is refused.
    ///
    /// - Parameters:
    ///   - text: The rule set.
    ///   - format: Its format; `nil` to tell from the text.
    /// - Returns: The compiled rule set.
    public static func load(_ text: String, format: RuleFormat? = nil) throws(RuleLoadError) -> RuleSet {
        do {
            let set: RuleSet
            switch format ?? detect(text) {
            case .text: set = try RuleTextParser.parse(text)
            case .json: set = try RuleSetJSON.load(try JSONParser.parse(text))
            case .segment: set = try SegmentRoutingRules.load(try JSONParser.parse(text))
            }
            try RuleSetLimits.check(set)
            return set
        } catch {
            throw RuleLoadError(error)
        }
    }

    /// The format `text` looks like.
    package static func detect(_ text: String) -> RuleFormat {
        guard let json = try? JSONParser.parse(text) else { return .text }
        if json["rules"] != nil { return .json }
        return .segment
    }
}
