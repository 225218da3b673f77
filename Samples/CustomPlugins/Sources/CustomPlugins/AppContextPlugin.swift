import MetaRouter

/// Adds app-specific context to every event: the environment and the experiment variants the
/// user is in.
public final class AppContextPlugin: Plugin {
    /// After identity and context.
    public let type = PluginType.enrichment
    private let environment: String
    /// Experiment variants, e.g. `["checkout_v2": "treatment"]`; change them through
    /// `analytics.perform { $0.find(AppContextPlugin.self)?.experiments = … }`.
    public var experiments: [String: String]

    /// Stamps `context.environment` and `context.experiments`.
    public init(environment: String, experiments: [String: String] = [:]) {
        self.environment = environment
        self.experiments = experiments
    }

    /// Adds the two context fields.
    public func execute(event: Event) -> Event? {
        var event = event
        event.context["environment"] = .string(environment)
        if !experiments.isEmpty { event.context["experiments"] = .object(experiments.mapValues(JSON.string)) }
        return event
    }
}
