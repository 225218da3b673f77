import Foundation
import MetaRouter
import MetaRouterAdvertisingID
import MetaRouterTesting
import Testing

@Suite struct ContextPluginTests {
    @Test func fillsRealLinuxContextComputedOnce() async throws {
        let (client, capture) = makePluginClient()
        client.track("a")
        client.screen("Home")
        await client.settle()
        let context = try #require(capture.events.first?.context)
        #expect(context["library"] == ["name": "metarouter-swift", "version": .string(LibraryInfo.version)])
        #expect(context["app"]?["name"] == "Tests")
        #expect(context["app"]?["version"] == "1.2.3")
        #expect(context["app"]?["build"] == "45")
        #expect(context["timezone"]?.stringValue?.isEmpty == false)
        #if os(Linux)
        #expect(context["os"]?["name"] == "Linux")
        #expect(context["os"]?["version"]?.stringValue?.isEmpty == false)
        #expect(context["device"]?["type"] == "server")
        #endif
        let values = context.values.map(JSONWriter.string)
        #expect(!values.contains { $0.contains("unknown") })
        #expect(capture.events[1].context == context)
    }

    @Test func perCallContextMergesOverThePluginContext() async {
        let (client, capture) = makePluginClient()
        client.track("a", options: EventOptions(context: ["app": ["version": "9.9"], "ip": "203.0.113.7"]))
        await client.settle()
        let context = capture.events.first?.context
        #expect(context?["app"]?["version"] == "9.9")
        #expect(context?["app"]?["name"] == "Tests")
        #expect(context?["ip"] == "203.0.113.7")
    }

    /// The plugin reuses the last merge while the per-call context repeats; a different one,
    /// a return to an earlier one and none at all each get their own context.
    @Test func repeatedPerCallContextsMergeLikeFreshOnes() async {
        let (client, capture) = makePluginClient()
        let contexts: [[String: JSON]] = [
            ["ip": "203.0.113.7"], ["ip": "203.0.113.7"], ["ip": "198.51.100.1"], [:],
            ["ip": "203.0.113.7", "app": ["version": "9.9"]], ["ip": "203.0.113.7"],
        ]
        for context in contexts { client.track("a", options: EventOptions(context: context)) }
        await client.settle()
        let base = capture.events.count == contexts.count ? capture.events[3].context : [:]
        #expect(capture.events.count == contexts.count)
        for (event, context) in zip(capture.events, contexts) {
            #expect(event.context == ContextMerge.merge(base, context))
        }
        #expect(capture.events.last?.context["app"]?["version"] != "9.9")
    }

    @Test func contextMergeIsDeep() {
        let merged = ContextMerge.merge(["a": ["x": 1, "y": 2], "b": 1], ["a": ["y": 3], "b": ["z": true]])
        #expect(merged == ["a": ["x": 1, "y": 3], "b": ["z": true]])
    }
}

@Suite struct AdvertisingIDPluginTests {
    private let idfa = "123E4567-E89B-12D3-A456-426614174000"

    private func setAdvertisingId(_ client: AnalyticsClient, _ value: String?) {
        client.perform { $0.find(AdvertisingIDPlugin.self)?.set(value) }
    }

    @Test func validIdGoesToDeviceContextAndPersists() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        setAdvertisingId(client, idfa)
        client.track("a")
        await client.settle()
        #expect(capture.events.first?.context["device"]?["advertisingId"] == .string(idfa))
        #expect(capture.events.first?.context["device"]?["type"] != nil)
        #expect(store.string(forKey: AdvertisingIDPlugin.storageKey) == idfa)
        let (second, secondCapture) = makePluginClient(store: store)
        second.track("b")
        await second.settle()
        #expect(secondCapture.events.first?.context["device"]?["advertisingId"] == .string(idfa))
    }

    @Test func invalidIdIsRejectedWithAWarningAndTheOldOneStays() async {
        let logs = RecordingLogSink()
        let (client, capture) = makePluginClient(logs: logs)
        setAdvertisingId(client, idfa)
        setAdvertisingId(client, "not-a-uuid")
        client.track("a")
        await client.settle()
        #expect(capture.events.first?.context["device"]?["advertisingId"] == .string(idfa))
        #expect(logs.messages(atLeast: .warning).contains { $0.contains("not-a-uuid") })
    }

    @Test func nilClearAndResetRemoveTheId() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        setAdvertisingId(client, idfa)
        client.track("with")
        setAdvertisingId(client, nil)
        client.track("cleared")
        setAdvertisingId(client, idfa)
        client.reset()
        client.track("reset")
        await client.settle()
        #expect(capture.events.map { $0.context["device"]?["advertisingId"] } == [.string(idfa), nil, nil])
        #expect(store.string(forKey: AdvertisingIDPlugin.storageKey) == nil)
    }
}
