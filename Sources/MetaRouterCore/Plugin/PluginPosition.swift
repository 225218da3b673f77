/// Where, within its stage, a plugin is inserted. Stages always run in their fixed order
/// (`before`, `enrichment`, destinations, `after`); a position only orders plugins of one stage.
public struct PluginPosition: Sendable {
    private enum Place: Sendable {
        case last
        case first
        case before(ObjectIdentifier)
        case after(ObjectIdentifier)
    }

    private let place: Place

    /// After every plugin already in the stage (the default).
    public static let last = PluginPosition(place: .last)
    /// Ahead of every plugin already in the stage.
    public static let first = PluginPosition(place: .first)

    /// Just ahead of the first plugin of class `anchor` in the same stage, or last when the
    /// stage has none.
    ///
    /// - Parameter anchor: The type of the plugin to go before.
    /// - Returns: The position.
    public static func before(_ anchor: any Plugin.Type) -> PluginPosition {
        PluginPosition(place: .before(ObjectIdentifier(anchor)))
    }

    /// Just after the last plugin of class `anchor` in the same stage, or last when the stage
    /// has none.
    ///
    /// - Parameter anchor: The type of the plugin to go after.
    /// - Returns: The position.
    public static func after(_ anchor: any Plugin.Type) -> PluginPosition {
        PluginPosition(place: .after(ObjectIdentifier(anchor)))
    }

    /// The index at which to insert into `list`, the plugins of one stage in order.
    func index(in list: [any Plugin]) -> Int {
        switch place {
        case .last:
            return list.count
        case .first:
            return 0
        case .before(let anchor):
            return list.firstIndex { ObjectIdentifier(type(of: $0)) == anchor } ?? list.count
        case .after(let anchor):
            return list.lastIndex { ObjectIdentifier(type(of: $0)) == anchor }.map { $0 + 1 } ?? list.count
        }
    }
}
