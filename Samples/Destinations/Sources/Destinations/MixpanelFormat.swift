import Foundation
import MetaRouter

/// Mixpanel's ingestion API as a ``DeliveryFormat``: `POST /import?strict=1` (basic auth with
/// the project token, events of any age, per-event validation) or `POST /track?verbose=1`
/// (the token in each event, the last 5 days only); the body is a JSON array of
/// `{"event", "properties"}`. Mixpanel's answers, partial failures included, are verdicts.
///
/// | call | Mixpanel event |
/// |---|---|
/// | track | the event's name, its properties |
/// | identify | `$identify` with `$identified_id` (the user id) and `$anon_id` (the anonymous id) |
/// | screen | `Viewed <name> Screen` |
/// | page | `$mp_web_page_view` with `current_page_title`, `current_url_path` |
/// | group | left out: group profiles live at `/groups`; every event carries `groupKey: groupId` |
/// | alias | `$create_alias` with `distinct_id` the previous id and `alias` the new one |
///
/// Every event's properties: `token`, `distinct_id` (the user id, else the anonymous id),
/// `time` (ms), `$insert_id` (the message id's UUID: Mixpanel keeps one event per id),
/// `$device_id`, `$user_id`, `mp_lib`, `$lib_version`, OS, device and app from `context`.
public struct MixpanelFormat: DeliveryFormat {
    /// Which ingestion endpoint.
    public enum Endpoint: Sendable {
        /// `/import?strict=1`, basic auth with the project token.
        case `import`
        /// `/track?verbose=1`, the token in each event.
        case track
    }

    /// The project token.
    public let token: String
    /// The API host, e.g. `https://api.mixpanel.com` (`https://api-eu.mixpanel.com` for EU).
    public let host: URL
    /// The endpoint batches go to.
    public let endpoint: Endpoint
    /// The group key a group id is sent under (Mixpanel group analytics).
    public let groupKey: String

    /// The format for a project.
    ///
    /// - Parameters:
    ///   - token: The project token.
    ///   - host: The API host.
    ///   - endpoint: `/import` (the default) or `/track`.
    ///   - groupKey: The group key a group id is sent under.
    public init(token: String, host: URL = URL(string: "https://api.mixpanel.com")!, endpoint: Endpoint = .import, groupKey: String = "company") {
        self.token = token
        self.host = host
        self.endpoint = endpoint
        self.groupKey = groupKey
    }

    /// `POST /import?strict=1` or `/track?verbose=1` with a JSON array.
    public func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        let wire = batch.events.map(WireEvent.init)
        let events = wire.compactMap(mixpanelEvent)
        guard !events.isEmpty else { throw NothingToSend(types: wire.map(\.type)) }
        var headers = ["Content-Type": "application/json", "Accept": "application/json"]
        let path: String
        switch endpoint {
        case .import:
            path = "import?strict=1"
            headers["Authorization"] = "Basic " + Data("\(token):".utf8).base64EncodedString()
        case .track:
            path = "track?verbose=1"
        }
        return DeliveryRequest(url: URL(string: path, relativeTo: host.appendingPathComponent(""))!.absoluteURL, headers: headers, body: try encodeBody(.array(events)))
    }

    /// The Mixpanel event for one call (`nil` for a group).
    public func mixpanelEvent(_ event: WireEvent) -> JSON? {
        var properties = event.properties
        var name = event.name
        switch event.type {
        case "identify":
            name = "$identify"
            properties = [:]
            properties.set("$identified_id", event.userId.map(JSON.string))
            properties.set("$anon_id", event.anonymousId.map(JSON.string))
        case "screen":
            name = "Viewed \(event.name) Screen"
        case "page":
            name = "$mp_web_page_view"
            properties["current_page_title"] = .string(event.name)
            properties.set("current_url_path", event.properties["path"])
        case "group":
            return nil
        case "alias":
            name = "$create_alias"
            properties = ["alias": .string(event.userId ?? "")]
        default:
            break
        }
        properties["token"] = .string(token)
        properties["distinct_id"] = .string(event.type == "alias" ? event.previousId ?? event.distinctId : event.distinctId)
        properties["time"] = .int(event.epochMillis)
        properties["$insert_id"] = .string(event.dedupUUID)
        properties.set("$device_id", event.anonymousId.map(JSON.string))
        properties.set("$user_id", event.userId.map(JSON.string))
        properties.set("mp_lib", event.context("library", "name"))
        properties.set("$lib_version", event.context("library", "version"))
        properties.set("$os", event.context("os", "name"))
        properties.set("$os_version", event.context("os", "version"))
        properties.set("$model", event.context("device", "model"))
        properties.set("$manufacturer", event.context("device", "manufacturer"))
        properties.set("$app_version_string", event.context("app", "version"))
        properties.set("ip", event.context("ip"))
        if let groupId = event.groupId { properties[groupKey] = .string(groupId) }
        return ["event": .string(name), "properties": .object(properties)]
    }

    /// Mixpanel's answers: 200 delivered, unless `/track` says `"status": 0` (rejected with its
    /// `error`); 400 from `/import` is a partial success — the valid events are in, and the
    /// ones in `failed_records` would fail again — so the batch is rejected with a reason that
    /// names them (retrying would be safe, `$insert_id` deduplicates, but useless); 401/403
    /// rejected; 413 split; 429 retried after `Retry-After` when sent, else the engine's
    /// backoff; 5xx and anything else retried.
    public func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        let json = try? JSONDecoder().decode(JSON.self, from: response.body)
        switch response.status {
        case 200..<300:
            if json?["status"]?.int64Value == 0 { return .reject(reason: "Mixpanel: \(json?["error"]?.stringValue ?? "status 0")") }
            return .delivered
        case 413: return .split
        case 408, 429: return .retry(after: retryAfter(response))
        case 400:
            let failed = json?["failed_records"]?.arrayValue ?? []
            let imported = json?["num_records_imported"]?.int64Value.map { "\($0) imported, " } ?? ""
            let first = failed.prefix(3).map { "\($0["insert_id"]?.stringValue ?? "?") \($0["field"]?.stringValue ?? ""): \($0["message"]?.stringValue ?? "")" }
            return .reject(reason: "Mixpanel 400: \(imported)\(failed.count) failed\(first.isEmpty ? "" : " (" + first.joined(separator: "; ") + ")")\(json?["error"]?.stringValue.map { " — " + $0 } ?? "")")
        case 400..<500: return .reject(reason: "Mixpanel \(response.status): \(json?["error"]?.stringValue ?? "")")
        default: return .retry(after: nil)
        }
    }
}
