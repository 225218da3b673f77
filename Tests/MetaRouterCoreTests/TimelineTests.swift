import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

@Suite struct TimelineTests {
    @Test func runsStagesInOrderAndInsertionOrder() async {
        let capture = CapturingDestination()
        let after = MarkingPlugin(.after, marker: "after")
        let client = makeClient([
            after, capture, MarkingPlugin(.enrichment, marker: "e1"), MarkingPlugin(.before, marker: "b1"),
            MarkingPlugin(.enrichment, marker: "e2"), MarkingPlugin(.before, marker: "b2"),
        ])
        client.track("Order")
        await client.settle()
        #expect(capture.events.first?.properties?["trail"] == "b1>b2>e1>e2")
    }

    /// `run(stages:)` runs only the stages named, in the order named, and stops at a drop.
    @Test func runsOnlyTheNamedStages() {
        let timeline = Timeline()
        for plugin: any Plugin in [
            MarkingPlugin(.after, marker: "a1"), MarkingPlugin(.enrichment, marker: "e1"), MarkingPlugin(.before, marker: "b1"),
            MarkingPlugin(.before, marker: "b2"), DroppingPlugin(.enrichment, dropping: ["Dropped"]),
        ] {
            timeline.add(plugin)
        }
        let event = Event(type: .track, event: "Kept")
        #expect(timeline.run(stages: [.before, .enrichment], event)?.properties?["trail"] == "b1>b2>e1")
        #expect(timeline.run(stages: [.after, .before], event)?.properties?["trail"] == "a1>b1>b2")
        #expect(timeline.run(stages: [.before, .enrichment], Event(type: .track, event: "Dropped")) == nil)
    }

    /// A call's event reaches each plugin as the only reference to its fields: a plugin that
    /// takes it `consuming` edits it in place, and no stage copies it on the way.
    @Test func pluginsEditTheCallsEventInPlace() async {
        let first = StorageProbe(.before)
        let second = StorageProbe(.enrichment)
        let capture = CapturingDestination()
        let client = makeClient([first, second, capture])
        client.track("Edited", properties: ["n": 1])
        client.identify("user-1", traits: ["plan": "pro"])
        await client.settle()
        #expect(first.seen.count == 2 && second.seen.count == 2)
        #expect(first.seen.allSatisfy(\.unique) && second.seen.allSatisfy(\.unique))
        #expect(zip(first.seen, second.seen).allSatisfy { $0.storage == $1.storage })
        #expect(capture.events.map { $0.properties?["probe"] ?? $0.traits?["probe"] } == [.string("before>enrichment"), .string("before>enrichment")])
    }

    @Test func dropsAtEveryStage() async {
        let capture = CapturingDestination()
        let afterCapture = CapturingDestination(key: "After")
        // A destination's own plugins are added before it joins a client (or on the executor).
        capture.add(plugin: DroppingPlugin(.enrichment, dropping: ["c"]))
        afterCapture.add(plugin: DroppingPlugin(.before, dropping: ["d"]))
        let client = makeClient([
            DroppingPlugin(.before, dropping: ["a"]), DroppingPlugin(.enrichment, dropping: ["b"]), capture,
        ])
        client.add(plugin: afterCapture)
        for name in ["a", "b", "c", "d", "e"] { client.track(name) }
        await client.settle()
        #expect(capture.events.compactMap(\.event) == ["d", "e"])
        #expect(afterCapture.events.compactMap(\.event) == ["c", "e"])
    }

    @Test func destinationSubTimelineChangesOnlyItsCopy() async {
        let first = CapturingDestination(key: "First")
        let second = CapturingDestination(key: "Second")
        first.add(plugin: MarkingPlugin(.enrichment, marker: "only-first"))
        let client = makeClient([first, second, MarkingPlugin(.enrichment, marker: "global")])
        client.track("x")
        await client.settle()
        #expect(first.events.first?.properties?["trail"] == "global>only-first")
        #expect(second.events.first?.properties?["trail"] == "global")
    }

    @Test func addingToADestinationByKeyAtRunTime() async {
        let capture = CapturingDestination(key: "Late")
        let client = makeClient([capture])
        client.track("before")
        client.add(plugin: MarkingPlugin(.before, marker: "late"), toDestination: "Late")
        client.track("after")
        await client.settle()
        #expect(capture.events.map { $0.properties?["trail"] } == [nil, "late"])
    }

    @Test func addAndRemoveTravelTheOrderedPath() async {
        let capture = CapturingDestination()
        let marker = MarkingPlugin(.enrichment, marker: "m")
        let client = makeClient([capture])
        client.track("1")
        client.add(plugin: marker)
        client.track("2")
        client.remove(plugin: marker)
        client.track("3")
        await client.settle()
        #expect(capture.events.map { $0.properties?["trail"] } == [nil, "m", nil])
        #expect(marker.configured == 1)
        #expect(client.find(pluginType: MarkingPlugin.self) == nil)
        #expect(client.find(pluginType: CapturingDestination.self) === capture)
    }

    @Test func perTypeHooksDispatch() async {
        let hooks = HookRecordingPlugin()
        let client = makeClient([hooks])
        client.track("t")
        client.identify("u")
        client.screen("s")
        client.page("p")
        client.group("g")
        client.alias("a")
        await client.settle()
        #expect(hooks.calls == ["track", "identify", "screen", "page", "group", "alias"])
    }

    @Test func utilityPluginsSeeNoEventsButGetControlHooks() async {
        let probe = UtilityProbe()
        let destination = HookCountingDestination()
        let client = makeClient([probe, destination])
        client.track("x")
        client.flush()
        client.reset()
        await client.settle()
        await client.shutdown()
        #expect(probe.executed == 0)
        #expect(probe.flushes == 1)
        #expect(probe.resets == 1)
        #expect(probe.shutdowns == 1)
        #expect((destination.resets, destination.flushes, destination.shutdowns) == (1, 1, 1))
    }

    @Test func shutdownDropsLaterCallsWithALogLine() async {
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let client = AnalyticsClient(configuration: Configuration(writeKey: "k", logger: AnalyticsLogger(sink: logs)), plugins: [capture])
        client.track("kept")
        await client.shutdown()
        client.track("dropped")
        client.track("dropped too")
        await client.settle()
        #expect(capture.events.compactMap(\.event) == ["kept"])
        #expect(client.droppedCalls == 2)
        #expect(logs.messages(atLeast: .warning).filter { $0.contains("dropped track") }.count == 1)
    }

    @Test func disabledClientDropsCalls() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        client.disable(reason: "test")
        client.track("x")
        await client.settle()
        #expect(capture.events.isEmpty)
        #expect(client.lifecycle == .disabled)
        #expect(client.disabledReason == "test")
    }
}

@Suite struct CallSiteConversionTests {
    @Test func badValuesAreDroppedWithALogLineNamingTheKeyPath() async {
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let client = AnalyticsClient(configuration: Configuration(writeKey: "k", logger: AnalyticsLogger(sink: logs)), plugins: [capture])
        client.track("Order", properties: ["total": 19.99, "tax": Double.nan, "items": [["price": Double.infinity]]])
        client.screen("Home", properties: ["name": "ignored", "ok": true])
        client.identify("u", traits: ["age": Float.nan, "plan": "pro"])
        await client.settle()
        #expect(capture.events[0].properties == ["total": 19.99, "items": [[:]]])
        #expect(capture.events[1].properties == ["name": "Home", "ok": true])
        #expect(capture.events[2].traits == ["plan": "pro"])
        let warnings = logs.messages(atLeast: .warning)
        #expect(warnings.count == 3)
        #expect(warnings.contains { $0.contains("track \"Order\"") && $0.contains("properties.tax") })
        #expect(warnings.contains { $0.contains("properties.items[0].price") })
        #expect(warnings.contains { $0.contains("identify") && $0.contains("traits.age") })
    }

    @Test func laterChangesToTheCallersDictionaryDoNotReachTheEvent() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        var properties: [String: Any] = ["step": 1]
        client.track("Wizard", properties: properties)
        properties["step"] = 2
        client.track("Wizard", properties: properties)
        await client.settle()
        #expect(capture.events.map { $0.properties?["step"] } == [1, 2])
    }
}

/// Records, per event, whether it arrived as the only reference to its fields and which
/// storage it had after this plugin's edit, and appends its stage to `probe`.
private final class StorageProbe: Plugin, @unchecked Sendable {  // `seen` is read after settle(), when the executor is idle
    let type: PluginType
    private(set) var seen: [(unique: Bool, storage: ObjectIdentifier)] = []

    init(_ type: PluginType) { self.type = type }

    func execute(event: consuming Event) -> Event? {
        let unique = isKnownUniquelyReferenced(&event.storage)
        let stage = type == .before ? "before" : "enrichment"
        if event.type == .track {
            let trail = event.properties?["probe"]?.stringValue.map { $0 + ">" } ?? ""
            event.properties?["probe"] = .string(trail + stage)
        } else {
            let trail = event.traits?["probe"]?.stringValue.map { $0 + ">" } ?? ""
            event.traits?["probe"] = .string(trail + stage)
        }
        seen.append((unique, ObjectIdentifier(event.storage)))
        return event
    }
}
