/// The six Segment-compatible event types.
public enum EventType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A user action, with an event name and properties.
    case track
    /// Who the user is, with traits.
    case identify
    /// A screen view in an app.
    case screen
    /// A page view on the web.
    case page
    /// The user's membership of a group (company, team), with traits.
    case group
    /// Links a previous identity to a new userId.
    case alias
}
