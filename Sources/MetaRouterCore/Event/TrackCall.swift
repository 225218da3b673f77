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

    /// The call with its values packed (``PackedValues``), for a call that waits behind a
    /// backlog; `nil` when it has no values or one is of a kind not packed.
    func packed() -> PackedTrackCall? {
        guard let values else { return nil }
        return PackedTrackCall(name: name, timestamp: timestamp, packing: values, problems: problems)
    }
}

/// A ``TrackCall`` whose values were packed at the call because the ingress was behind
/// (``PipelineExecutor/compactionThreshold``): it holds one byte array instead of the caller's
/// dictionaries.
package struct PackedTrackCall: Sendable {
    let name: String
    let timestamp: Date
    let values: PackedValues
    let problems: InputProblemReporter

    /// The call with `values` packed; `nil` when one is of a kind not packed.
    init?(name: String, timestamp: Date, packing values: [String: Any], problems: InputProblemReporter) {
        guard let packed = PackedValues.pack(values) else { return nil }
        self.init(name: name, timestamp: timestamp, values: packed, problems: problems)
    }

    init(name: String, timestamp: Date, values: PackedValues, problems: InputProblemReporter) {
        self.name = name
        self.timestamp = timestamp
        self.values = values
        self.problems = problems
    }

    /// The complete event, the same one ``TrackCall/resolved()`` makes of the unpacked call.
    package consuming func resolved() -> Event {
        let properties = values.unpacked()
        if properties == nil {
            problems.report(
                InputProblem(code: .propertyNotEncodable, keyPath: "properties", message: "dropped properties: their packed form could not be read back"),
                call: "track \"\(name)\"")
        }
        let event = Event(type: .track, messageId: "", timestamp: timestamp, event: name, properties: properties ?? [:], context: [:])
        return PreparedEvent(event).resolved()
    }
}
