import Foundation

/// One unit of work on the ordered path: an event, or an operation on the timeline (identity
/// change, reset, plugin added, flush, a plugin's own continuation).
package enum Command: Sendable {
    /// An event to run through the timeline; its caller's values are converted first.
    case event(PreparedEvent)
    /// A track call whose event is made on the executor, then run like ``event(_:)``.
    case track(TrackCall)
    /// Track calls made one after another while the ingress was behind, their values packed
    /// at the call (``PipelineExecutor/submitPacked(name:timestamp:values:problems:hint:)``).
    case packedTracks(PackedTrackRun)
    /// Work that runs on the executor with the timeline, in order with the events.
    case operation(@Sendable (Timeline) -> Void)

    /// Whether the command is an event (which the ingress bound counts and a refusal drops).
    var isEvent: Bool {
        switch self {
        case .event, .track, .packedTracks: return true
        case .operation: return false
        }
    }

    /// Whether this is a ``track(_:)`` call (its case alone: the payload is not copied).
    var isTrackCall: Bool {
        if case .track = self { return true }
        return false
    }
}
