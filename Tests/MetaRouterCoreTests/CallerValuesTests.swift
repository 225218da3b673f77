import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

@Suite struct CallerValuesTests {
    /// The caller mutates its reference-type values right after `track` returns, while the
    /// executor has not yet run the event: the event keeps what was passed at the call.
    @Test func mutableFoundationValuesAreCapturedAtTheCall() async {
        let gate = ExecutorGate()
        let capture = CapturingDestination()
        let client = makeClient([gate, capture])
        await gate.hold(client)
        let cart = NSMutableDictionary(dictionary: ["sku": "A-1", "quantity": 1])
        let items = NSMutableArray(array: ["first"])
        client.track("Checkout", properties: ["cart": cart, "items": items, "plain": "kept"])
        cart["sku"] = "CHANGED"
        cart["quantity"] = 99
        items.add("added later")
        gate.open.signal()
        await client.settle()
        let properties = capture.events.last?.properties
        #expect(properties?["cart"] == ["sku": "A-1", "quantity": 1])
        #expect(properties?["items"] == ["first"])
        #expect(properties?["plain"] == "kept")
    }

    /// Swift collections of plain values are captured and converted on the executor, with a bad
    /// value deep inside reported by its path; a collection holding a Foundation object, at any
    /// depth, is still converted at the call.
    @Test func nestedSwiftCollectionsAreDeferredUnlessTheyHoldAnObject() async {
        let gate = ExecutorGate()
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let client = AnalyticsClient(configuration: Configuration(writeKey: "nested", logger: AnalyticsLogger(sink: logs)), plugins: [gate, capture])
        await gate.hold(client)
        let box = NSMutableDictionary(dictionary: ["state": "at the call"])
        let variant: [String: Any] = ["size": 42, "tags": ["a", "b"], "weight": Double.nan, "shelf": ["row": 3, "bins": [1, 2]]]
        client.track("Nested", properties: ["variant": variant])
        client.track("Boxed", properties: ["outer": ["inner": ["box": box]] as [String: Any]])
        box["state"] = "changed later"
        gate.open.signal()
        await client.settle()
        let nested = capture.events.first { $0.event == "Nested" }?.properties?["variant"]
        #expect(nested == ["size": 42, "tags": ["a", "b"], "shelf": ["row": 3, "bins": [1, 2]]])
        #expect(logs.messages.contains { $0.contains("properties.variant.weight") })
        let boxed = capture.events.first { $0.event == "Boxed" }?.properties?["outer"]
        #expect(boxed == ["inner": ["box": ["state": "at the call"]]])
    }

    /// Which values a call may leave for the executor to convert: value types of the common
    /// kinds, `NSNumber`, and Swift collections of them nested at most four levels. A class
    /// instance is judged by the type it was passed as, and anything else is converted at the
    /// call, which is always safe.
    @Test func plainValuesAreTheOnesNoCallerCanChangeLater() {
        let number: NSNumber = NSNumber(value: 4)
        let asObject: NSObject = NSNumber(value: 6)
        let deep: [String: Any] = ["a": ["b": ["c": 1] as [String: Any]] as [String: Any]]
        let fourLevels: [String: Any] = ["a": ["b": ["c": ["d": 1] as [String: Any]] as [String: Any]] as [String: Any]]
        let tooDeep: [String: Any] = ["a": ["b": ["c": ["d": ["e": 1] as [String: Any]] as [String: Any]] as [String: Any]] as [String: Any]]
        let plain: [[String: Any]] = [
            ["s": "text", "i": 1, "d": 2.5, "b": true, "l": Int64(7), "f": Float(1.5), "t": Date(timeIntervalSince1970: 0)],
            ["n": number, "b": NSNumber(value: true)],
            ["list": ["a", "b"], "counts": [1, 2], "map": ["k": "v"], "mixed": [1, "two", 3.0] as [Any]],
            deep, fourLevels,
        ]
        let notPlain: [[String: Any]] = [
            ["object": asObject], ["mutable": NSMutableString(string: "x")], ["box": NSMutableDictionary()],
            ["optional": Optional("x") as Any], ["nested": ["box": NSMutableArray()] as [String: Any]],
            tooDeep, ["url": URL(string: "https://example.com")!],
        ]
        for values in plain { #expect(PendingValues.allPlain(values), "\(values)") }
        for values in notPlain { #expect(!PendingValues.allPlain(values), "\(values)") }
    }

    /// A track call without options waits in the ingress as the call itself (no event made at
    /// the call) and becomes the event the other path makes: the same fields, a bad value
    /// reported the same way, in order with the calls that take the other path.
    @Test func aTrackCallKeptAsACallBecomesTheSameEvent() async throws {
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let clock = ManualClock()
        let client = AnalyticsClient(
            configuration: Configuration(writeKey: "calls", logger: AnalyticsLogger(sink: logs), clock: clock), plugins: [capture])
        let properties: [String: Any] = ["sku": "A-1", "price": 19.99, "weight": Double.infinity, "variant": ["size": 42] as [String: Any]]
        let factory = EventFactory(clock: clock, problems: InputProblemReporter(logger: AnalyticsLogger(sink: SilentSink())))
        guard case .track = factory.trackCommand("Kept", properties: properties, options: nil) else {
            Issue.record("a track call without options and with plain values is not kept as a call")
            return
        }
        client.track("Kept", properties: properties)
        client.track("Kept", properties: properties, options: EventOptions())
        client.track("Kept")
        client.track("Kept", options: EventOptions())
        await client.settle()
        let events = capture.events
        try #require(events.count == 4)
        for (call, event) in [(events[0], events[1]), (events[2], events[3])] {
            var made = event
            made.messageId = call.messageId
            #expect(call == made)
            #expect(!call.messageId.isEmpty)
        }
        #expect(events[0].properties == ["sku": "A-1", "price": 19.99, "variant": ["size": 42]])
        #expect(logs.messages.filter { $0.contains("properties.weight") }.count == 2)
    }

    @Test func plainValuesAreDeferredAndStillExact() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        client.track("Plain", properties: ["s": "x", "i": 3, "d": 2.5, "b": true, "n": NSNumber(value: 7), "t": date])
        await client.settle()
        let properties = capture.events.first?.properties
        #expect(properties?["s"] == "x")
        #expect(properties?["i"] == 3)
        #expect(properties?["d"] == 2.5)
        #expect(properties?["b"] == true)
        #expect(properties?["n"] == 7)
        #expect(properties?["t"] == "2023-11-14T22:13:20.123Z")
    }
}

@Suite struct IngressBoundTests {
    /// With the executor held, callers fill the ingress: events beyond `maxPendingEvents` are
    /// dropped at the call and counted, one warning says so (not one per event), operations
    /// are still accepted, and every event admitted is delivered in order once it runs.
    @Test func eventsBeyondTheBoundAreDroppedCountedAndReportedOnce() async {
        let gate = ExecutorGate()
        let capture = CapturingDestination()
        let sink = RecordingLogSink()
        var configuration = Configuration(writeKey: "bounded", logger: AnalyticsLogger(sink: sink))
        configuration.maxPendingEvents = 100
        let client = AnalyticsClient(configuration: configuration, plugins: [gate, capture])
        await gate.hold(client)
        for index in 0..<250 { client.track("burst", properties: ["i": index]) }
        let operationRan = Locked(false)
        client.perform { _ in operationRan.withLock { $0 = true } }
        #expect(client.overflowedEvents == 150)
        gate.open.signal()
        await client.settle()
        #expect(operationRan.current)
        let indices = capture.events.filter { $0.event == "burst" }.compactMap { $0.properties?["i"]?.int64Value }
        #expect(indices == (0..<100).map(Int64.init))
        let warnings = sink.messages(atLeast: .warning).filter { $0.contains("maxPendingEvents") }
        #expect(warnings.count == 1)
        // Once drained, the ingress takes events again.
        client.track("after")
        await client.settle()
        #expect(capture.events.last?.event == "after")
        #expect(client.overflowedEvents == 150)
    }
}

@Suite struct TypedPlainDictionaryTests {
    private struct Typed: Encodable {
        let path: String
        let when: Date
    }

    /// A typed dictionary of plain values (which picks the `Encodable` overload) takes the
    /// untyped path: the same properties and traits, with no encoder on the caller's thread.
    /// Other `Encodable` values still go through the encoder.
    @Test func plainDictionariesConvertAsUntypedOnes() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        client.track("strings", properties: ["path": "/checkout", "tier": "gold"])
        client.track("strings", properties: ["path": "/checkout", "tier": "gold"] as [String: Any])
        client.track("numbers", properties: ["count": 2, "limit": 9])
        client.screen("doubles", properties: ["price": 19.99])
        client.page("flags", properties: ["on": true])
        client.identify("user-1", traits: ["plan": "pro"])
        client.group("group-1", traits: ["seats": 5])
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        client.track("typed", properties: Typed(path: "/x", when: date))
        // The screen's own name wins over a `name` among the values; a blank event name is
        // refused before the values are looked at.
        client.screen("Home", properties: ["name": "ignored", "tab": "feed"])
        client.track("  ", properties: ["path": "/checkout"])
        await client.settle()
        let events = capture.events
        #expect(events.count == 9)
        guard events.count == 9 else { return }
        #expect(events[0].properties == events[1].properties)
        #expect(events[0].properties == ["path": "/checkout", "tier": "gold"])
        #expect(events[2].properties == ["count": .int(2), "limit": .int(9)])
        #expect(events[3].properties?["price"] == .double(19.99))
        #expect(events[4].properties?["on"] == .bool(true))
        #expect(events[5].traits == ["plan": "pro"] && events[5].userId == "user-1")
        #expect(events[6].traits == ["seats": .int(5)] && events[6].groupId == "group-1")
        #expect(events[7].properties == ["path": "/x", "when": .string(Timestamp.string(from: date))])
        #expect(events[8].name == "Home" && events[8].properties == ["name": "Home", "tab": "feed"])
    }

    /// The caller only stamps the time; the messageId is drawn on the executor, one per event,
    /// from that time — and an event built by hand keeps the messageId it was given.
    @Test func messageIdsAreDrawnOnTheExecutorFromTheCallsTime() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        let prepared = client.events.track("Prepared", properties: ["a": 1], options: nil)
        #expect(prepared.event.messageId.isEmpty)
        for index in 0..<200 {
            client.track("Call \(index)", properties: index % 2 == 0 ? ["index": index] : nil)
        }
        client.identify("user-1", traits: ["plan": "pro"])
        client.screen("Home", properties: nil)
        client.group("group-1", traits: nil)
        client.process(Event(type: .track, messageId: "given-id", event: "Built by hand"))
        await client.settle()
        let events = capture.events
        #expect(events.count == 204)
        #expect(Set(events.map(\.messageId)).count == 204)
        for event in events.dropLast() {
            #expect(event.messageId.hasPrefix("\(Timestamp.epochMillis(event.timestamp))-"))
            #expect(UUID(uuidString: String(event.messageId.split(separator: "-", maxSplits: 1)[1])) != nil)
        }
        #expect(events.last?.messageId == "given-id")
    }
}
