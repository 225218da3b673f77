import Destinations
import Foundation
import MetaRouter

/// The three formats under test, and how each vendor's body names its events' dedup ids.
enum Vendor: String, CaseIterable, CustomStringConvertible, Sendable {
    case amplitude, mixpanel, posthog

    var description: String { rawValue }
    /// The destination's key.
    var key: String { rawValue.capitalized }

    func format(host: URL) -> any DeliveryFormat {
        switch self {
        case .amplitude: return AmplitudeFormat(apiKey: "KEY", endpoint: host.appendingPathComponent("2/httpapi"))
        case .mixpanel: return MixpanelFormat(token: "TOKEN", host: host)
        case .posthog: return PostHogFormat(apiKey: "phc_KEY", host: host)
        }
    }

    /// The path the format posts to.
    var path: String {
        switch self {
        case .amplitude: return "/2/httpapi"
        case .mixpanel: return "/import?strict=1"
        case .posthog: return "/batch/"
        }
    }

    /// The vendor's events in a recorded request's body.
    func events(_ request: JSON) -> [JSON] {
        switch self {
        case .amplitude: return request["body"]?["events"]?.arrayValue ?? []
        case .mixpanel: return request["body"]?.arrayValue ?? []
        case .posthog: return request["body"]?["batch"]?.arrayValue ?? []
        }
    }

    /// An event's dedup id (`insert_id`, `$insert_id`, `uuid`) and the test's counter `n`.
    func idAndNumber(_ event: JSON) -> (id: String, n: Int64?) {
        switch self {
        case .amplitude: return (event["insert_id"]?.stringValue ?? "", event["event_properties"]?["n"]?.int64Value)
        case .mixpanel: return (event["properties"]?["$insert_id"]?.stringValue ?? "", event["properties"]?["n"]?.int64Value)
        case .posthog: return (event["uuid"]?.stringValue ?? "", event["properties"]?["n"]?.int64Value)
        }
    }
}
