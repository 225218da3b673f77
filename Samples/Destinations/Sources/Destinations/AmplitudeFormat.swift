import Foundation
import MetaRouter

/// Amplitude's HTTP V2 API (`POST https://api2.amplitude.com/2/httpapi`) as a
/// ``DeliveryFormat``: `{"api_key", "events": [...]}`, one Amplitude event per call (two for a
/// group with traits), and Amplitude's documented answers as verdicts.
///
/// | call | Amplitude event |
/// |---|---|
/// | track | `event_type` = the event's name, `event_properties` = its properties |
/// | identify | `$identify`, `user_properties: {"$set": traits}` |
/// | screen | `[Amplitude] Screen Viewed`, `[Amplitude] Screen Name` in `event_properties` |
/// | page | `[Amplitude] Page Viewed`, `[Amplitude] Page Title` / `Page URL` / `Page Path` |
/// | group | `$identify` with `groups: {groupType: groupId}` and `$set` of the same; with traits also `$groupidentify` with `group_properties: {"$set": traits}` |
/// | alias | left out: Amplitude aliases through its User Mapping API, another endpoint |
///
/// Every event: `user_id`, `device_id` (the anonymous id), `time` (ms), `insert_id` (the
/// message id; `-group` appended for a group's second event), `session_id`, `library`, and the
/// device, OS, app and locale from `context`.
public struct AmplitudeFormat: DeliveryFormat {
    /// The project's API key.
    public let apiKey: String
    /// Where batches go.
    public let endpoint: URL
    /// The group type a group call sets (`groups: {groupType: groupId}`).
    public let groupType: String

    /// Amplitude's US endpoint; pass `https://api.eu.amplitude.com/2/httpapi` for EU residency.
    public static let defaultEndpoint = URL(string: "https://api2.amplitude.com/2/httpapi")!

    /// The format for a project.
    ///
    /// - Parameters:
    ///   - apiKey: The project's API key.
    ///   - endpoint: The HTTP V2 endpoint.
    ///   - groupType: The group type a group call sets.
    public init(apiKey: String, endpoint: URL = AmplitudeFormat.defaultEndpoint, groupType: String = "group") {
        self.apiKey = apiKey
        self.endpoint = endpoint
        self.groupType = groupType
    }

    /// `POST {"api_key", "events"}` as JSON.
    public func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        let wire = batch.events.map(WireEvent.init)
        let events = wire.flatMap(amplitudeEvents)
        guard !events.isEmpty else { throw NothingToSend(types: wire.map(\.type)) }
        let body: JSON = ["api_key": .string(apiKey), "events": .array(events)]
        return DeliveryRequest(
            url: endpoint, headers: ["Content-Type": "application/json; charset=UTF-8", "Accept": "*/*"], body: try encodeBody(body))
    }

    /// The Amplitude events for one call (none for an alias).
    public func amplitudeEvents(_ event: WireEvent) -> [JSON] {
        var common = self.common(event)
        switch event.type {
        case "identify":
            common["event_type"] = "$identify"
            common["user_properties"] = ["$set": .object(event.traits)]
        case "screen":
            common["event_type"] = "[Amplitude] Screen Viewed"
            common["event_properties"] = .object(event.properties.merging(["[Amplitude] Screen Name": .string(event.name)]) { _, new in new })
        case "page":
            var properties = event.properties
            properties["[Amplitude] Page Title"] = .string(event.name)
            properties.set("[Amplitude] Page URL", event.properties["url"])
            properties.set("[Amplitude] Page Path", event.properties["path"])
            common["event_type"] = "[Amplitude] Page Viewed"
            common["event_properties"] = .object(properties)
        case "group":
            let group = JSON.string(event.groupId ?? "")
            common["event_type"] = "$identify"
            common["groups"] = [groupType: group]
            common["user_properties"] = ["$set": [groupType: group]]
            guard !event.traits.isEmpty else { return [.object(common)] }
            var groupIdentify = common
            groupIdentify["event_type"] = "$groupidentify"
            groupIdentify["insert_id"] = .string(event.messageId + "-group")
            groupIdentify["user_properties"] = nil
            groupIdentify["group_properties"] = ["$set": .object(event.traits)]
            return [.object(common), .object(groupIdentify)]
        case "alias":
            return []
        default:
            common["event_type"] = .string(event.name)
            if !event.properties.isEmpty { common["event_properties"] = .object(event.properties) }
        }
        return [.object(common)]
    }

    /// The fields every event carries.
    private func common(_ event: WireEvent) -> [String: JSON] {
        var fields: [String: JSON] = ["time": .int(event.epochMillis), "insert_id": .string(event.messageId)]
        fields.set("user_id", event.userId.map(JSON.string))
        fields.set("device_id", event.anonymousId.map(JSON.string))
        fields.set("session_id", event.context("sessionId"))
        fields.set("platform", event.context("os", "name"))
        fields.set("os_name", event.context("os", "name"))
        fields.set("os_version", event.context("os", "version"))
        fields.set("device_model", event.context("device", "model"))
        fields.set("device_manufacturer", event.context("device", "manufacturer"))
        fields.set("app_version", event.context("app", "version"))
        fields.set("language", event.context("locale"))
        fields.set("ip", event.context("ip"))
        if let name = event.context("library", "name")?.stringValue, let version = event.context("library", "version")?.stringValue {
            fields["library"] = .string("\(name)/\(version)")
        }
        return fields
    }

    /// Amplitude's answers: 200 delivered; 413 split (a single event too large is dropped);
    /// 429 retried after `Retry-After` when sent, else after the engine's backoff (Amplitude
    /// throttles a device or user past 30 events/s and usually sends none); 400 rejected with
    /// Amplitude's `error` (a bad key, a missing field, invalid events: the same batch would
    /// fail again); other 4xx rejected; 5xx and anything else retried.
    public func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        switch response.status {
        case 200..<300: return .delivered
        case 413: return .split
        case 429, 408: return .retry(after: retryAfter(response))
        case 400..<500: return .reject(reason: "Amplitude \(response.status): \(errorSummary(response.body))")
        default: return .retry(after: nil)
        }
    }

    private func errorSummary(_ body: Data) -> String {
        guard let json = try? JSONDecoder().decode(JSON.self, from: body) else { return String(decoding: body.prefix(200), as: UTF8.self) }
        var parts = [json["error"]?.stringValue ?? "error"]
        if let field = json["missing_field"]?.stringValue { parts.append("missing field \(field)") }
        if let invalid = json["events_with_invalid_fields"]?.objectValue, !invalid.isEmpty {
            parts.append("invalid fields \(invalid.keys.sorted().joined(separator: ", "))")
        }
        return parts.joined(separator: "; ")
    }
}

/// The seconds of a `Retry-After` header, when the answer has one in seconds.
///
/// - Parameter response: The host's answer.
/// - Returns: The delay, or `nil` (the engine's backoff then applies).
func retryAfter(_ response: DeliveryResponse) -> TimeInterval? {
    response.header("Retry-After").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) }
}
