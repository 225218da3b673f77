import MetaRouterCore

/// The event types a rule applies to (`only track, screen`) as one bit per type: testing an
/// event's type is a shift and a mask, where a `Set<EventType>` hashed the type's name.
struct EventTypeMask: Sendable {
    private let bits: UInt8

    /// The mask of `types`; every type when `types` is `nil`.
    init(_ types: Set<EventType>?) {
        bits = types.map { $0.reduce(0) { $0 | Self.bit(for: $1) } } ?? .max
    }

    /// Whether `type` is one of the mask's.
    func contains(_ type: EventType) -> Bool { bits & Self.bit(for: type) != 0 }

    private static func bit(for type: EventType) -> UInt8 {
        switch type {
        case .track: return 1 << 0
        case .identify: return 1 << 1
        case .screen: return 1 << 2
        case .page: return 1 << 3
        case .group: return 1 << 4
        case .alias: return 1 << 5
        }
    }
}
