import Foundation
import MetaRouter
import MetaRouterAdvertisingID
import MetaRouterTesting
import Testing

@Suite struct IdentityPluginTests {
    @Test func generatesALowercaseAnonymousIdAndFillsEvents() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        client.track("a")
        await client.settle()
        let anonymousId = try? #require(capture.events.first?.anonymousId)
        #expect(anonymousId == anonymousId?.lowercased())
        #expect(UUID(uuidString: anonymousId ?? "") != nil)
        #expect(store.string(forKey: IdentityKeys.anonymousId) == anonymousId)
    }

    @Test func identifyGroupAndAliasUpdateIdentityInOrder() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        client.track("anonymous")
        client.identify("u1", traits: ["name": "Jane", "plan": "free"])
        client.track("known")
        client.group("acme", traits: ["size": 10])
        client.identify("u1", traits: ["plan": "pro"])
        client.alias("u2")
        client.track("aliased")
        await client.settle()
        let events = capture.events
        let anonymousId = events[0].anonymousId
        #expect(events[0].userId == nil)
        #expect(events[1].userId == "u1")
        #expect(events[1].traits == ["name": "Jane", "plan": "free"])
        #expect(events[2].userId == "u1")
        #expect(events[3].groupId == "acme")
        #expect(events[5].type == .alias)
        #expect(events[5].previousId == "u1")
        #expect(events[5].userId == "u2")
        #expect(events[6].userId == "u2")
        #expect(events[6].groupId == "acme")
        #expect(events.allSatisfy { $0.anonymousId == anonymousId })
        #expect(store.string(forKey: IdentityKeys.userId) == "u2")
        #expect(store.string(forKey: IdentityKeys.groupId) == "acme")
        let traits = store.string(forKey: IdentityKeys.traits).flatMap { try? JSONParser.parse($0) }
        #expect(traits == ["name": "Jane", "plan": "pro"])
    }

    @Test func aliasWithoutAUserUsesTheAnonymousIdAsPreviousId() async {
        let (client, capture) = makePluginClient()
        client.alias("new-user")
        await client.settle()
        let event = capture.events.first
        #expect(event?.previousId == event?.anonymousId)
        #expect(event?.userId == "new-user")
    }

    @Test func resetClearsIdentityAndRegeneratesTheAnonymousId() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        client.identify("u1")
        client.group("g1")
        client.track("before")
        client.reset()
        client.track("after")
        await client.settle()
        let before = capture.events[2]
        let after = capture.events[3]
        #expect(before.userId == "u1")
        #expect(before.groupId == "g1")
        #expect(after.userId == nil)
        #expect(after.groupId == nil)
        #expect(after.anonymousId != before.anonymousId)
        #expect(store.string(forKey: IdentityKeys.userId) == nil)
        #expect(store.string(forKey: IdentityKeys.anonymousId) == after.anonymousId)
    }

    @Test func identityPersistsAcrossInstancesOnTheSameFileStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("identity.json")
        let (first, firstCapture) = makePluginClient(store: FileKeyValueStore(file: file))
        first.identify("employeeID", traits: ["name": "Jane"])
        first.group("store-12")
        first.track("Product Viewed")
        await first.shutdown()
        let (second, secondCapture) = makePluginClient(store: FileKeyValueStore(file: file))
        second.track("App Opened")
        await second.settle()
        let day1 = try #require(firstCapture.events.last)
        let day2 = try #require(secondCapture.events.first)
        #expect(day2.userId == "employeeID")
        #expect(day2.groupId == "store-12")
        #expect(day2.anonymousId == day1.anonymousId)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func aStoreFileThatCannotBeReadIsReportedAndLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A directory where the file should be: it exists, and reading it fails (as a file
        // without read permission would for a user other than root).
        let file = directory.url.appendingPathComponent("identity.json")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        let logs = RecordingLogSink()
        let (client, capture) = makePluginClient(store: FileKeyValueStore(file: file, logger: AnalyticsLogger(sink: logs)))
        client.identify("user-1")
        client.track("x")
        await client.settle()
        #expect(capture.events.last?.userId == "user-1")
        #expect(capture.events.last?.anonymousId != nil)
        let errors = logs.messages(atLeast: .error)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("cannot read the identity store") == true)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func unreadableStoreFileIsReportedAndReplaced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("identity.json")
        try Data([0, 0, 0, 0xFF]).write(to: file)
        let logs = RecordingLogSink()
        let store = FileKeyValueStore(file: file, logger: AnalyticsLogger(sink: logs))
        let (client, capture) = makePluginClient(store: store)
        client.track("x")
        await client.settle()
        #expect(capture.events.first?.anonymousId != nil)
        #expect(logs.messages.contains { $0.contains("not a JSON object") })
        let reread = FileKeyValueStore(file: file)
        #expect(reread.string(forKey: IdentityKeys.anonymousId) == capture.events.first?.anonymousId)
    }

    @Test func perCallIdentityOverridesAreRequestScoped() async {
        let store = InMemoryKeyValueStore()
        let (client, capture) = makePluginClient(store: store)
        client.track("request", options: EventOptions(userId: "server-user", anonymousId: "server-anon"))
        client.identify("request-user", options: EventOptions(anonymousId: "request-anon"))
        client.track("device")
        await client.settle()
        let events = capture.events
        #expect(events[0].userId == "server-user")
        #expect(events[0].anonymousId == "server-anon")
        #expect(events[1].anonymousId == "request-anon")
        #expect(events[2].userId == nil)
        #expect(events[2].anonymousId != "server-anon")
        #expect(store.string(forKey: IdentityKeys.userId) == nil)
    }
}

/// Drops identify calls: a stand-in for a consent gate.
private final class IdentifyGate: Plugin {
    let type = PluginType.before
    func execute(event: Event) -> Event? { event.type == .identify ? nil : event }
}

@Suite struct BuiltInStageTests {
    @Test func builtInsRunInTheEnrichmentStage() {
        #expect(IdentityPlugin().type == .enrichment)
        #expect(ContextPlugin().type == .enrichment)
        #expect(AdvertisingIDPlugin().type == .enrichment)
    }

    @Test func aBeforeGateRunsAheadOfIdentitySoNothingItDropsIsPersisted() async {
        let store = InMemoryKeyValueStore()
        let capture = CapturingDestination()
        let analytics = Analytics.capturing(into: capture) { $0.keyValueStore = store }
        analytics.add(plugin: IdentifyGate())
        analytics.identify("secret-user", traits: ["email": "a@example.com"])
        analytics.track("after")
        await analytics.performAndWait { _ in }
        await analytics.shutdown()
        #expect(capture.events.map(\.type) == [.track])
        #expect(capture.events.first?.userId == nil)
        #expect(store.string(forKey: IdentityKeys.userId) == nil)
        #expect(store.string(forKey: IdentityKeys.traits) == nil)
    }
}
