import Foundation
import MetaRouter

/// PostHog's batch API (`POST {host}/batch/`) as a ``DeliveryFormat``:
/// `{"api_key", "batch": [...], "historical_migration": false, "sent_at"}`, one PostHog event
/// per call, and PostHog's answers as verdicts.
///
/// | call | PostHog event |
/// |---|---|
/// | track | the event's name, its properties |
/// | identify | `$identify`, `$set: traits` and `$anon_distinct_id` in `properties` |
/// | screen | `$screen`, `$screen_name` |
/// | page | `$pageview`, `$current_url` / `$pathname` / `title` from the page |
/// | group | `$groupidentify`: `$group_type`, `$group_key` (the group id), `$group_set: traits` |
/// | alias | `$create_alias`: `distinct_id` the previous id, `alias` the new one |
///
/// Every event: `distinct_id` (the user id, else the anonymous id), `timestamp` (ISO 8601),
/// `uuid` (from the message id: PostHog drops a repeated one), `$lib`, `$lib_version`,
/// `$device_id`, `$session_id`, OS and app from `context`, and `$groups` when the event
/// carries a group id.
public struct PostHogFormat: DeliveryFormat {
    /// The project's API key (`phc_…`).
    public let apiKey: String
    /// The PostHog host, e.g. `https://us.i.posthog.com`.
    public let host: URL
    /// The group type group ids belong to (`$group_type`, the key in `$groups`).
    public let groupType: String

    /// The format for a project.
    ///
    /// - Parameters:
    ///   - apiKey: The project's API key.
    ///   - host: The PostHog host (US cloud unless given).
    ///   - groupType: The group type group ids belong to.
    public init(apiKey: String, host: URL = URL(string: "https://us.i.posthog.com")!, groupType: String = "company") {
        self.apiKey = apiKey
        self.host = host
        self.groupType = groupType
    }

    /// `POST /batch/` with the events as JSON.
    public func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        let events = batch.events.map { postHogEvent(WireEvent($0)) }
        var body: [String: JSON] = ["api_key": .string(apiKey), "batch": .array(events), "historical_migration": false]
        body.set("sent_at", batch.events.last?["sentAt"])
        return DeliveryRequest(
            url: host.appendingPathComponent("batch/"), headers: ["Content-Type": "application/json"], body: try encodeBody(.object(body)))
    }

    /// The PostHog event for one call.
    public func postHogEvent(_ event: WireEvent) -> JSON {
        var properties = event.properties
        var name = event.name
        var distinctId = event.distinctId
        switch event.type {
        case "identify":
            name = "$identify"
            properties = ["$set": .object(event.traits)]
            properties.set("$anon_distinct_id", event.anonymousId.map(JSON.string))
        case "screen":
            name = "$screen"
            properties["$screen_name"] = .string(event.name)
        case "page":
            name = "$pageview"
            properties.set("$current_url", event.properties["url"])
            properties.set("$pathname", event.properties["path"])
            properties["title"] = event.properties["title"] ?? .string(event.name)
        case "group":
            name = "$groupidentify"
            properties = ["$group_type": .string(groupType), "$group_key": .string(event.groupId ?? ""), "$group_set": .object(event.traits)]
        case "alias":
            name = "$create_alias"
            distinctId = event.previousId ?? event.distinctId
            properties = ["distinct_id": .string(distinctId), "alias": .string(event.userId ?? "")]
        default:
            break
        }
        properties.set("$lib", event.context("library", "name"))
        properties.set("$lib_version", event.context("library", "version"))
        properties.set("$device_id", event.anonymousId.map(JSON.string))
        properties.set("$session_id", event.context("sessionId").map { .string("\($0)") })
        properties.set("$os", event.context("os", "name"))
        properties.set("$os_version", event.context("os", "version"))
        properties.set("$device_model", event.context("device", "model"))
        properties.set("$app_version", event.context("app", "version"))
        properties.set("$ip", event.context("ip"))
        if let groupId = event.groupId, event.type != "group" { properties["$groups"] = [groupType: .string(groupId)] }
        return [
            "event": .string(name), "distinct_id": .string(distinctId), "properties": .object(properties),
            "timestamp": event.timestamp, "uuid": .string(event.dedupUUID),
        ]
    }

    /// PostHog's answers: 2xx delivered; 413 split; 429 and 408 retried (after `Retry-After`
    /// when sent); other 4xx rejected (a bad key or body: the same batch would fail again);
    /// 5xx and anything else retried.
    public func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        switch response.status {
        case 200..<300: return .delivered
        case 413: return .split
        case 408, 429: return .retry(after: retryAfter(response))
        case 400..<500: return .reject(reason: "PostHog \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        default: return .retry(after: nil)
        }
    }
}
