import Foundation
import MetaRouterCore

/// What a rule set does when a rule cannot be applied to an event (e.g. a `set` into a field
/// that is not an object).
package enum FailurePolicy: String, Sendable, Hashable {
    /// The event goes on as the failing rule found it.
    case open
    /// The event is dropped.
    case closed
}

/// One rule: a condition, the event types it applies to, and its actions.
package struct Rule: Sendable, Hashable {
    /// A name for logs and `--explain`.
    package var name: String
    /// When it applies; `nil` for every event.
    package var condition: Expression?
    /// Event types it applies to; `nil` for all.
    package var types: Set<EventType>?
    /// The destination it is limited to (Segment's `destinationName`); `nil` for all.
    package var destination: String?
    /// What it does, in order.
    package var actions: [RuleAction]

    /// A rule.
    package init(name: String, condition: Expression? = nil, types: Set<EventType>? = nil, destination: String? = nil, actions: [RuleAction]) {
        self.name = name
        self.condition = condition
        self.types = types
        self.destination = destination
        self.actions = actions
    }
}

/// An ordered set of rules with a version and a failure policy, compiled into closures. Each
/// rule sees the event as the earlier rules left it; the first drop ends processing.
public struct RuleSet: Sendable {
    /// A name.
    public var name: String
    /// Replacements must carry a higher version.
    public var version: Int
    /// What a failing rule does to its event.
    package var failurePolicy: FailurePolicy
    /// The rules.
    package let rules: [Rule]
    private let compiled: [CompiledRule]
    /// The keys every call reads once at most.
    private let plan: ReadPlan

    /// A rule ready to run; a class, so walking the rules copies nothing per rule.
    private final class CompiledRule: Sendable {
        let rule: Rule
        let name: String
        let destination: String?
        let types: EventTypeMask
        let matches: Evaluator.Predicate
        /// The actions as one closure; `false` drops the event.
        let effect: CompiledAction

        init(rule: Rule, plan: ReadPlan) {
            self.rule = rule
            name = rule.name
            destination = rule.destination
            types = EventTypeMask(rule.types)
            if let condition = rule.condition {
                matches = Evaluator.condition(condition, plan: plan)
            } else {
                matches = { _, _ in true }
            }
            effect = Self.effect(of: rule.actions, plan: plan)
        }

        /// Actions that cannot fail edit the event in place, one after the other; so may a first
        /// action that changes nothing when it fails. Otherwise they run on a copy, so a rule
        /// that fails part-way leaves no half-applied change.
        private static func effect(of actions: [RuleAction], plan: ReadPlan) -> CompiledAction {
            let forms = actions.map { $0.form(plan: plan) }
            if let inPlace = chained(forms[...]) { return inPlace }
            if let first = actions.first, first.changesNothingWhenItFails {
                if forms.count == 1 { return forms[0].action }
                if let rest = chained(forms.dropFirst()) {
                    let head = forms[0].action
                    return { event, cache throws in try head(&event, cache) && rest(&event, cache) }
                }
            }
            let compiled = forms.map(\.action)
            return { event, cache throws in
                var working = event
                for action in compiled {
                    guard try action(&working, cache) else { return false }
                }
                event = working
                return true
            }
        }

        /// Actions that cannot fail, run one after the other until one drops the event; `nil`
        /// when one may fail. Chained closures, not an array of them: a closure kept in an array
        /// is called through a conversion thunk. Joined by halves, so a rule of any number of
        /// actions nests its closures only log2(actions) deep.
        private static func chained(_ forms: ArraySlice<CompiledForm>) -> CompiledAction? {
            func joined(_ forms: ArraySlice<CompiledForm>) -> CompiledAction {
                if forms.count == 1 { return forms[forms.startIndex].action }
                let middle = forms.startIndex + forms.count / 2
                let first = joined(forms[..<middle]), second = joined(forms[middle...])
                return { event, cache throws in try first(&event, cache) && second(&event, cache) }
            }
            guard forms.allSatisfy(\.cannotFail) else { return nil }
            guard !forms.isEmpty else { return { _, _ throws in true } }
            return joined(forms)
        }

        /// What running a rule did.
        enum Outcome {
            case skipped, matched, dropped
            case failed(RuleRuntimeError)
        }

        /// Runs the rule on `event` when it applies to `destination` and the event.
        func run(on event: inout Event, destination: String?, cache: ReadCache) -> Outcome {
            guard self.destination == nil || self.destination == destination,
                types.contains(event.type), matches(event, cache)
            else { return .skipped }
            do {
                return try effect(&event, cache) ? .matched : .dropped
            } catch {
                return .failed(error as? RuleRuntimeError ?? RuleRuntimeError(message: "\(error)"))
            }
        }
    }

    /// Compiles `rules`.
    package init(name: String = "rules", version: Int = 1, failurePolicy: FailurePolicy = .open, rules: [Rule]) {
        self.init(name: name, version: version, failurePolicy: failurePolicy, rules: rules, cachingReads: true)
    }

    /// Compiles `rules`; without `cachingReads`, every read goes to the event (what the cache
    /// is tested against).
    init(name: String = "rules", version: Int = 1, failurePolicy: FailurePolicy = .open, rules: [Rule], cachingReads: Bool) {
        self.name = name
        self.version = version
        self.failurePolicy = failurePolicy
        self.rules = rules
        let plan = cachingReads ? ReadPlan(rules: rules) : .none
        self.plan = plan
        compiled = rules.map { CompiledRule(rule: $0, plan: plan) }
    }

    /// One step of `apply`, for `--explain`.
    public struct Step: Sendable, Hashable {
        /// The rule.
        public var rule: String
        /// What happened: `skipped`, `matched`, `dropped`, `failed: …`.
        public var outcome: String
    }

    /// The event after the rules that apply to `destination` (rules without a destination
    /// always apply; with `nil`, only those), or `nil` when one dropped it. `onStep` sees each
    /// rule's outcome, a rule that could not be applied included (`failed: …`).
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - destination: The destination the event is for, if the rules run inside one.
    ///   - onStep: Called with each rule's effect, for explanations.
    /// - Returns: The changed event, or `nil` when a rule dropped it.
    public func apply(to event: Event, destination: String? = nil, onStep: ((Step) -> Void)? = nil) -> Event? {
        apply(to: event, destination: destination, onStep: onStep, onFailure: nil)
    }

    /// ``apply(to:destination:onStep:)``, and `onFailure` sees each rule that could not be
    /// applied with its error.
    package func apply(
        to event: Event, destination: String?, onStep: ((Step) -> Void)?, onFailure: ((Rule, RuleRuntimeError) -> Void)?
    ) -> Event? {
        let rules = compiled, failurePolicy = failurePolicy
        guard plan.count > 0 else {
            return Self.run(rules, on: event, destination: destination, failurePolicy: failurePolicy, cache: .none, onStep: onStep, onFailure: onFailure)
        }
        // The closure takes the rules, not `self`: a copy of the set would cost a retain of
        // each of its fields per call.
        return ReadCache.with(slots: plan.count) { cache in
            Self.run(rules, on: event, destination: destination, failurePolicy: failurePolicy, cache: cache, onStep: onStep, onFailure: onFailure)
        }
    }

    private static func run(
        _ rules: [CompiledRule], on event: Event, destination: String?, failurePolicy: FailurePolicy, cache: ReadCache,
        onStep: ((Step) -> Void)?, onFailure: ((Rule, RuleRuntimeError) -> Void)?
    ) -> Event? {
        var current = event
        for index in rules.indices {
            // Borrowed, not retained: `rules` keeps each rule alive for the call, and a retain
            // and release per rule were about a twelfth of a 20-rule set's time.
            let outcome = Unmanaged.passUnretained(rules[index])._withUnsafeGuaranteedRef {
                $0.run(on: &current, destination: destination, cache: cache)
            }
            switch outcome {
            case .skipped:
                onStep?(Step(rule: rules[index].name, outcome: "skipped"))
            case .matched:
                onStep?(Step(rule: rules[index].name, outcome: "matched"))
            case .dropped:
                onStep?(Step(rule: rules[index].name, outcome: "dropped"))
                return nil
            case .failed(let failure):
                onFailure?(rules[index].rule, failure)
                onStep?(Step(rule: rules[index].name, outcome: "failed: \(failure.message)"))
                if failurePolicy == .closed { return nil }
            }
        }
        return current
    }
}
