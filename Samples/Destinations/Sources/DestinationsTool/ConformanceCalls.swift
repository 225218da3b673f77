import Destinations
import Foundation
import MetaRouter

/// The calls `Conformance/compare.py` makes through each vendor's Python client, as this SDK's
/// wire format writes them (`Docs/WireFormat.md`).
enum ConformanceCalls {
    static let context: JSON = [
        "library": ["name": "metarouter-swift", "version": "1.0.0"],
        "os": ["name": "iOS", "version": "17.4"],
        "device": ["manufacturer": "Apple", "model": "iPhone15,2", "type": "ios"],
        "app": ["name": "Shop", "version": "3.2.1", "build": "321"],
        "locale": "en-US", "timezone": "Europe/Berlin", "sessionId": 1_700_000_000_000,
    ]

    static func event(_ type: String, _ fields: [String: JSON]) -> JSON {
        var event: [String: JSON] = [
            "type": .string(type), "messageId": "1700000000123-0e2e8a7c-3a0e-4c1b-9a55-1b2c3d4e5f60",
            "timestamp": "2023-11-14T22:13:20.123Z", "sentAt": "2023-11-14T22:13:21.000Z",
            "anonymousId": "6a1f0c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b", "userId": "user-42", "writeKey": "wk", "context": context,
        ]
        event.merge(fields) { _, new in new }
        return .object(event)
    }

    /// One batch per call, by the name compare.py knows it under.
    static let calls: [(String, JSON)] = [
        ("track", event("track", ["event": "Order Completed", "properties": ["total": 42, "currency": "EUR", "items": [1, 2], "gift": false, "price": 19.99]])),
        ("identify", event("identify", ["traits": ["email": "ada@example.com", "plan": "pro", "age": 36]])),
        ("screen", event("screen", ["name": "Checkout", "properties": ["name": "Checkout", "step": 2]])),
        ("page", event("page", ["name": "Pricing", "properties": ["name": "Pricing", "url": "https://example.com/pricing", "path": "/pricing", "title": "Pricing"]])),
        ("group", event("group", ["groupId": "acme", "traits": ["name": "Acme", "employees": 120]])),
        ("alias", event("alias", ["previousId": "6a1f0c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b", "userId": "user-42"])),
    ]
}

/// Prints, as JSON, the request each format builds for each of ``ConformanceCalls/calls``:
/// `{"amplitude": {"track": {"method", "url", "headers", "body"} | {"error"}, …}, …}`.
func printConformance(host: URL) throws {
    let formats: [(String, any DeliveryFormat)] = [
        ("amplitude", AmplitudeFormat(apiKey: "KEY", endpoint: host.appendingPathComponent("2/httpapi"))),
        ("mixpanel", MixpanelFormat(token: "TOKEN", host: host, endpoint: .import)),
        ("mixpanel_track", MixpanelFormat(token: "TOKEN", host: host, endpoint: .track)),
        ("posthog", PostHogFormat(apiKey: "phc_KEY", host: host)),
    ]
    var out: [String: JSON] = [:]
    for (vendor, format) in formats {
        var requests: [String: JSON] = [:]
        for (call, event) in ConformanceCalls.calls {
            do {
                let request = try format.request(for: DeliveryBatch(events: [event], id: "batch-\(call)"))
                let body = try JSONDecoder().decode(JSON.self, from: request.body)
                requests[call] = [
                    "method": .string(request.method), "url": .string(request.url.absoluteString),
                    "headers": .object(request.headers.mapValues(JSON.string)), "body": body,
                ]
            } catch {
                requests[call] = ["error": .string("\(error)")]
            }
        }
        out[vendor] = .object(requests)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    FileHandle.standardOutput.write(try encoder.encode(JSON.object(out)) + Data("\n".utf8))
}
