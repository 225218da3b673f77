import MetaRouter

/// Renames properties (and traits) by a fixed map — fixing a misnamed property without an app
/// release of every call site. An existing value under the new name is kept.
public final class PropertyRenamePlugin: Plugin {
    /// Before user enrichment, so later plugins see the right names.
    public let type = PluginType.enrichment
    private let renames: [String: String]

    /// Renames `old → new`.
    public init(_ renames: [String: String]) { self.renames = renames }

    /// Renames keys in `properties` and `traits`.
    public func execute(event: Event) -> Event? {
        var event = event
        event.properties = event.properties.map(rename)
        event.traits = event.traits.map(rename)
        return event
    }

    private func rename(_ values: [String: JSON]) -> [String: JSON] {
        var renamed = values
        for (old, new) in renames {
            guard let value = renamed.removeValue(forKey: old) else { continue }
            if renamed[new] == nil { renamed[new] = value }
        }
        return renamed
    }
}
