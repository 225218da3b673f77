import Foundation
import MetaRouter
import MetaRouterAdvertisingID
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// Input that used to be accepted silently: clear-text hosts, empty ids, the all-zero
/// advertising ID, the storage base on Linux.
@Suite struct InputValidationTests {
    @Test func plainHTTPNeedsLoopbackOrAnExplicitOptIn() {
        func errors(_ host: String, allow: Bool = false) -> [String] {
            var options = InitOptions(writeKey: "k", ingestionHost: host)
            options.allowInsecureHTTP = allow
            return options.validationErrors()
        }
        #expect(errors("http://ingest.example.com").first?.contains("clear text") == true)
        #expect(errors("http://10.0.0.5:8080").first?.contains("allowInsecureHTTP") == true)
        #expect(errors("http://128.0.0.1").first?.contains("clear text") == true)
        #expect(errors("http://ingest.example.com", allow: true).isEmpty)
        #expect(errors("https://ingest.example.com").isEmpty)
        for loopback in [
            "http://127.0.0.1:9000", "http://127.1.2.3", "http://localhost:8080/p", "http://[::1]:8080", "http://LocalHost",
            "http://api.localhost:1", "http://127.0.0.001", "http://127.255.255.255",
        ] {
            #expect(errors(loopback).isEmpty, "\(loopback)")
        }
        for remote in [
            "http://0127.0.0.1", "http://127.0.0.256", "http://127.0.0.1.5", "http://127.0.0", "http://127..0.1", "http://localhost.example.com",
            "http://notlocalhost", "http://[::2]:8080", "http://127.0.0.1a",
        ] {
            #expect(errors(remote).first?.contains("clear text") == true, "\(remote)")
        }
        let inert = MetaRouter.Analytics.instance(for: InitOptions(writeKey: "insecure-\(UUID())", ingestionHost: "http://ingest.example.com"))
        #expect(inert.configurationError?.contains("clear text") == true)
    }

    @Test func batchingOptionsMustBePositive() {
        var options = InitOptions(writeKey: "k", ingestionHost: "https://ingest.example.com")
        #expect(options.validationErrors().isEmpty)
        options.flushAt = 0
        options.maxBatchSize = -1
        #expect(options.validationErrors() == ["flushAt must be > 0 (got 0)", "maxBatchSize must be > 0 (got -1)"])
    }

    @Test func emptyIdsAreRefusedAndTheIdentityIsKept() async {
        let logs = RecordingLogSink()
        let (client, capture) = makePluginClient(logs: logs)
        client.identify("u1")
        client.group("g1")
        client.identify("")
        client.identify("   ", traits: ["x": 1])
        client.group("")
        client.alias("")
        client.track("after")
        await client.settle()
        let events = capture.events
        #expect(events.map(\.type) == [.identify, .group, .track])
        #expect(events.last?.userId == "u1")
        #expect(events.last?.groupId == "g1")
        #expect(logs.messages.filter { $0.contains("the id is empty") }.count == 4)
    }

    @Test func theAllZeroAdvertisingIdIsNoId() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        client.perform { $0.find(AdvertisingIDPlugin.self)?.set("6D92078A-8246-4BA4-AE5B-76104861E7DC") }
        client.track("with")
        client.perform { $0.find(AdvertisingIDPlugin.self)?.set("00000000-0000-0000-0000-000000000000") }
        client.track("limited")
        await client.settle()
        #expect(capture.events[0].context["device"]?["advertisingId"] == "6D92078A-8246-4BA4-AE5B-76104861E7DC")
        #expect(capture.events[1].context["device"]?["advertisingId"] == nil)
        #expect(store.string(forKey: AdvertisingIDPlugin.storageKey) == nil)
    }

    @Test func linuxStorageFollowsXDGThenHome() {
        #expect(StorageFiles.linuxBase(environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/home/a"]).path == "/xdg")
        #expect(StorageFiles.linuxBase(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"]).path == "/home/a/.local/share")
        #expect(StorageFiles.linuxBase(environment: ["HOME": "/home/b"]).path == "/home/b/.local/share")
    }
}
