import Foundation
import MetaRouter
import MetaRouterCLIKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the inspector holds and whom it answers, over real HTTP on 127.0.0.1: memory bounded
/// by bytes as well as count, oversized events kept as previews, the Segment HTTP API's paths
/// and Basic auth, the Segment Spec (not this SDK's habits) as the judge, and the API's
/// refusals of requests that are not the page's own.
@Suite struct InspectorLimitsTests {
    private func post(_ url: URL, _ body: String, headers: [String: String] = [:]) async throws -> (Int, String) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    private func event(_ index: Int, padding: Int) -> String {
        #"{"type":"track","event":"Big \#(index)","userId":"u","messageId":"m-\#(index)","properties":{"blob":"\#(String(repeating: "x", count: padding))"}}"#
    }

    @Test func eventsAreBoundedByBytesAndOversizedOnesArePreviews() async throws {
        let inspector = InspectorServer(byteBudget: 1 << 20)
        let url = try await inspector.start()
        // 40 events of 2 MB, four to a batch: 80 MB through a 1 MiB budget.
        for batch in 0..<10 {
            let events = (0..<4).map { event(batch * 4 + $0, padding: 2_000_000) }.joined(separator: ",")
            let (status, _) = try await post(url.appendingPathComponent("v1/batch"), #"{"batch":[\#(events)]}"#)
            #expect(status == 200)
        }
        // And 200 small ones: the budget evicts the oldest by bytes.
        for index in 0..<200 {
            _ = try await post(url.appendingPathComponent("v1/track"), event(1_000 + index, padding: 10_000))
        }
        let events = inspector.store.events
        let bytes = events.reduce(0) { $0 + $1.description.utf8.count }
        #expect(bytes <= 1 << 20, "\(bytes) bytes kept")
        #expect(events.count < 200 && events.last?["event"]?["event"] == "Big 1199")
        await inspector.stop()

        let previewed = InspectorServer(byteBudget: 1 << 20)
        let second = try await previewed.start()
        _ = try await post(second.appendingPathComponent("v1/batch"), #"{"batch":[\#(event(7, padding: 2_000_000))]}"#)
        let row = try #require(previewed.store.events.first)
        #expect(row["truncated"] == true)
        #expect(row["event"]?["event"] == "Big 7" && row["event"]?["messageId"] == "m-7")
        #expect((row["event"]?["truncated"]?["bytes"]?.int64Value ?? 0) > 2_000_000)
        #expect(row.description.utf8.count < 8_192)
        await previewed.stop()
    }

    @Test func theSegmentHTTPAPIsPathsAndBasicAuthAreRead() async throws {
        let inspector = InspectorServer()
        let url = try await inspector.start()
        let auth = "Basic " + Data("segment-key-0042:".utf8).base64EncodedString()
        // What Segment's libraries send: no writeKey in the body, a uuid messageId, sentAt in the
        // envelope, timestamps with microseconds and an offset.
        let segmentEvent = #"{"type":"track","event":"Signed Up","userId":"u-1","messageId":"5f0c2a4e-6a43-4d0e-9d0e-2a1f5b9c7d11","timestamp":"2026-11-26T10:00:00.123456+00:00","context":{"library":{"name":"analytics-python"}}}"#
        let paths = ["v1/batch", "v1/b", "b"]
        for path in paths {
            let body = #"{"batch":[\#(segmentEvent)],"sentAt":"2026-11-26T10:00:01.5+00:00"}"#
            #expect(try await post(url.appendingPathComponent(path), body, headers: ["Authorization": auth]).0 == 200)
        }
        for type in ["track", "identify", "page", "screen", "group", "alias"] {
            let body = #"{"userId":"u-1","event":"Single","groupId":"g","previousId":"p"}"#
            #expect(try await post(url.appendingPathComponent("v1/\(type)"), body, headers: ["Authorization": auth]).0 == 200)
        }
        #expect(try await post(url.appendingPathComponent("v1/unknown"), "{}").0 == 404)
        let events = inspector.store.events
        #expect(events.count == 9)
        #expect(events.suffix(6).map { $0["event"]?["type"]?.stringValue } == ["track", "identify", "page", "screen", "group", "alias"])
        #expect(events.allSatisfy { $0["analysis"]?["wireProblems"]?.arrayValue?.isEmpty == true }, "\(events.map { $0["analysis"] ?? .null })")
        let batches = inspector.store.batches
        #expect(batches.prefix(9).allSatisfy { $0["writeKey"] == "************0042" && $0["problems"]?.arrayValue?.isEmpty == true })
        // What the Segment Spec does require is still reported.
        _ = try await post(url.appendingPathComponent("v1/track"), #"{"properties":[]}"#)
        let problems = inspector.store.events.last?["analysis"]?["wireProblems"]?.arrayValue ?? []
        let broken = problems.compactMap { $0.stringValue }
        #expect(broken.contains("needs anonymousId or userId") && broken.contains("missing event") && broken.contains("properties must be an object"))
        await inspector.stop()
    }

    @Test func theAPIAnswersOnlyThePagesOwnRequests() async throws {
        let inspector = InspectorServer()
        let url = try await inspector.start()
        let own = url.absoluteString
        let faults = url.appendingPathComponent("api/faults")
        let body = #"{"fault":"500"}"#
        #expect(try await post(faults, body, headers: ["Origin": "http://attacker.example", "Content-Type": "text/plain"]).0 == 403)
        #expect(try await post(faults, body, headers: ["Content-Type": "text/plain"]).0 == 403, "no Origin")
        let (status, reason) = try await post(faults, body, headers: ["Origin": own, "X-MetaRouter-Token": "0123"])
        #expect(status == 403 && reason == "forbidden: X-MetaRouter-Token must be this run's token (in the page's HTML)\n")
        #expect(inspector.store.faultsJSON == [])
        #expect(try await post(faults, body, headers: ["Origin": own, "X-MetaRouter-Token": inspector.token]).0 == 200)
        #expect(inspector.store.faultsJSON.arrayValue?.count == 1)
        let (page, _) = try await URLSession.shared.data(from: url)
        #expect(String(decoding: page, as: UTF8.self).contains(#"<meta name="metarouter-token" content="\#(inspector.token)">"#))
        // A web page posting events: refused; an SDK (no Origin) is not.
        #expect(try await post(url.appendingPathComponent("v1/batch"), #"{"batch":[]}"#, headers: ["Origin": "http://attacker.example"]).0 == 403)
        #expect(try await post(url.appendingPathComponent("v1/batch"), #"{"batch":[]}"#).0 == 500, "the queued fault answers the SDK")
        await inspector.stop()
    }
}
