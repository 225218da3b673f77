import Foundation

/// A `track` call as the ingress keeps it when it needs nothing but its name, its time and the
/// caller's values, all plain (see ``PreparedEvent``): no per-call options, no values to
/// convert at the call. It allocates nothing at the call — its event is made on the executor
/// (``resolved()``), from memory the executor recycles — so a burst of calls outrunning the
/// executor grows the process by one ingress slot per call, not by an event as well. Made only
/// by ``EventFactory/trackCommand(_:properties:options:)``, which checks the values.
package struct TrackCall: @unchecked Sendable {  // `values` holds only plain values (`PendingValues.allPlain`): nothing the caller can change
    let name: String
    let timestamp: Date
    let values: [String: Any]?
    let problems: InputProblemReporter

    /// The complete event: the same event ``EventFactory/track(_:properties:options:)`` and
    /// ``PreparedEvent/resolved()`` make for a call without options.
    package consuming func resolved() -> Event {
        let event = Event(type: .track, messageId: "", timestamp: timestamp, event: name, context: [:])
        return PreparedEvent(event, values: values, plain: true, target: .properties, problems: problems).resolved()
    }
}
