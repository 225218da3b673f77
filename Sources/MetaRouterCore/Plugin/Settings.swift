/// Settings handed to every plugin through `update(settings:)`: the values given in the
/// client's configuration, and later ones a host downloads and applies at run time.
public struct Settings: Sendable, Hashable {
    /// Per-destination settings keyed by destination key.
    public var integrations: [String: JSON]
    /// Everything else, as received.
    public var extra: [String: JSON]

    /// Creates settings.
    public init(integrations: [String: JSON] = [:], extra: [String: JSON] = [:]) {
        self.integrations = integrations
        self.extra = extra
    }
}
