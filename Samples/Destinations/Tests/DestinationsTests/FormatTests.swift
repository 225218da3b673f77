import Destinations
import Foundation
import MetaRouter
import Testing

/// Each format's mapping and answer table, without a network.
@Suite struct FormatTests {
    private let host = URL(string: "http://127.0.0.1:9")!

    private func event(_ type: String, _ fields: [String: JSON] = [:]) -> JSON {
        var event: [String: JSON] = [
            "type": .string(type), "messageId": "1700000000123-0E2E8A7C-3A0E-4C1B-9A55-1B2C3D4E5F60", "timestamp": "2023-11-14T22:13:20.123Z",
            "anonymousId": "anon-1", "userId": "user-1",
        ]
        event.merge(fields) { _, new in new }
        return .object(event)
    }

    private func body(_ format: any DeliveryFormat, _ events: [JSON]) throws -> JSON {
        try JSONDecoder().decode(JSON.self, from: format.request(for: DeliveryBatch(events: events, id: "b")).body)
    }

    private func answer(_ status: Int, _ headers: [String: String] = [:], _ body: String = "{}") -> DeliveryResponse {
        DeliveryResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    @Test func dedupIdsComeFromTheMessageId() {
        #expect(WireEvent(event("track")).dedupUUID == "0e2e8a7c-3a0e-4c1b-9a55-1b2c3d4e5f60")
        let odd = WireEvent(event("track", ["messageId": "not-a-uuid-at-all"]))
        #expect(UUID(uuidString: odd.dedupUUID) != nil && odd.dedupUUID == WireEvent(event("track", ["messageId": "not-a-uuid-at-all"])).dedupUUID)
        #expect(odd.dedupUUID != WireEvent(event("track", ["messageId": "another"])).dedupUUID)
        #expect(WireEvent(event("track")).epochMillis == 1_700_000_000_123)
    }

    @Test func amplitudeMapsEachCall() throws {
        let format = AmplitudeFormat(apiKey: "K", endpoint: host)
        let events = try body(format, [
            event("track", ["event": "Bought", "properties": ["total": 4]]), event("identify", ["traits": ["plan": "pro"]]),
            event("group", ["groupId": "acme", "traits": ["name": "Acme"]]), event("alias", ["previousId": "anon-1"]),
        ])["events"]?.arrayValue ?? []
        #expect(events.map { $0["event_type"]?.stringValue } == ["Bought", "$identify", "$identify", "$groupidentify"])
        #expect(events[0]["insert_id"] == "1700000000123-0E2E8A7C-3A0E-4C1B-9A55-1B2C3D4E5F60" && events[0]["time"] == 1_700_000_000_123)
        #expect(events[1]["user_properties"] == ["$set": ["plan": "pro"]])
        #expect(events[3]["group_properties"] == ["$set": ["name": "Acme"]] && events[3]["groups"] == ["group": "acme"])
        #expect(events[3]["insert_id"] == .string(events[2]["insert_id"]?.stringValue.map { $0 + "-group" } ?? ""), "a group's two events, two ids")
        #expect(throws: NothingToSend.self) { try format.request(for: DeliveryBatch(events: [event("alias")], id: "b")) }
    }

    @Test func amplitudeAnswers() {
        let format = AmplitudeFormat(apiKey: "K")
        #expect(format.verdict(for: answer(200)) == .delivered)
        #expect(format.verdict(for: answer(413)) == .split)
        #expect(format.verdict(for: answer(429)) == .retry(after: nil))
        #expect(format.verdict(for: answer(429, ["Retry-After": "7"])) == .retry(after: 7))
        #expect(format.verdict(for: answer(500)) == .retry(after: nil))
        guard case .reject(let reason) = format.verdict(for: answer(400, [:], #"{"code":400,"error":"Invalid field values","events_with_invalid_fields":{"time":[0]}}"#)) else {
            Issue.record("400 is a rejection")
            return
        }
        #expect(reason.contains("Invalid field values") && reason.contains("time"))
    }

    @Test func mixpanelMapsEachCallAndAuthenticatesImports() throws {
        let format = MixpanelFormat(token: "T", host: host)
        let request = try format.request(for: DeliveryBatch(events: [event("track", ["event": "Bought", "groupId": "acme"]), event("group")], id: "b"))
        #expect(request.url.absoluteString == "http://127.0.0.1:9/import?strict=1")
        #expect(request.headers["Authorization"] == "Basic " + Data("T:".utf8).base64EncodedString())
        let events = try JSONDecoder().decode(JSON.self, from: request.body).arrayValue ?? []
        #expect(events.count == 1, "a group call is left out")
        #expect(events[0]["properties"]?["$insert_id"] == "0e2e8a7c-3a0e-4c1b-9a55-1b2c3d4e5f60")
        #expect(events[0]["properties"]?["company"] == "acme" && events[0]["properties"]?["token"] == "T")
        let alias = try body(MixpanelFormat(token: "T", host: host, endpoint: .track), [event("alias", ["previousId": "anon-1"])])
        #expect(alias.arrayValue?.first?["event"] == "$create_alias")
        #expect(alias.arrayValue?.first?["properties"]?["distinct_id"] == "anon-1" && alias.arrayValue?.first?["properties"]?["alias"] == "user-1")
    }

    @Test func mixpanelAnswersIncludingPartialFailures() {
        let format = MixpanelFormat(token: "T")
        #expect(format.verdict(for: answer(200, [:], #"{"code":200,"num_records_imported":4,"status":"OK"}"#)) == .delivered)
        #expect(format.verdict(for: answer(200, [:], #"{"status":0,"error":"token missing"}"#)) == .reject(reason: "Mixpanel: token missing"))
        let partial = #"{"code":400,"error":"some data points in the request failed validation","num_records_imported":3,"status":"Bad Request","failed_records":[{"index":1,"insert_id":"abc","field":"properties.time","message":"too old"}]}"#
        guard case .reject(let reason) = format.verdict(for: answer(400, [:], partial)) else {
            Issue.record("a partial failure is a rejection")
            return
        }
        #expect(reason.contains("3 imported") && reason.contains("1 failed") && reason.contains("abc properties.time: too old"))
        #expect(format.verdict(for: answer(413)) == .split)
        #expect(format.verdict(for: answer(429, ["retry-after": "2"])) == .retry(after: 2))
        #expect(format.verdict(for: answer(502)) == .retry(after: nil))
    }

    @Test func postHogMapsEachCall() throws {
        let format = PostHogFormat(apiKey: "phc", host: host)
        let batch = try body(format, [
            event("identify", ["traits": ["plan": "pro"]]), event("screen", ["name": "Home"]), event("page", ["name": "Pricing"]),
            event("group", ["groupId": "acme", "traits": ["name": "Acme"]]), event("alias", ["previousId": "anon-1"]),
        ])["batch"]?.arrayValue ?? []
        #expect(batch.map { $0["event"]?.stringValue } == ["$identify", "$screen", "$pageview", "$groupidentify", "$create_alias"])
        #expect(batch[0]["properties"]?["$set"] == ["plan": "pro"] && batch[0]["properties"]?["$anon_distinct_id"] == "anon-1")
        #expect(batch[1]["properties"]?["$screen_name"] == "Home")
        #expect(batch[3]["properties"]?["$group_key"] == "acme" && batch[3]["properties"]?["$group_set"] == ["name": "Acme"])
        #expect(batch[4]["distinct_id"] == "anon-1" && batch[4]["properties"]?["alias"] == "user-1")
        #expect(batch.allSatisfy { $0["uuid"] == "0e2e8a7c-3a0e-4c1b-9a55-1b2c3d4e5f60" && $0["timestamp"] == "2023-11-14T22:13:20.123Z" })
    }

    @Test func postHogAnswers() {
        let format = PostHogFormat(apiKey: "phc")
        #expect(format.verdict(for: answer(200)) == .delivered)
        #expect(format.verdict(for: answer(401)) == .reject(reason: "PostHog 401: {}"))
        #expect(format.verdict(for: answer(429)) == .retry(after: nil))
        #expect(format.verdict(for: answer(413)) == .split)
        #expect(format.verdict(for: answer(503)) == .retry(after: nil))
    }
}
