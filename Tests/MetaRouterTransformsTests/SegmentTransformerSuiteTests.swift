import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouterTransforms

/// Segment's own transformer cases, as our test. Source: segmentio/tsub-js,
/// `src/__tests__/transformers.test.ts`, commit 64c100ccd60d830f751f46c9c837f9a5ae486a84. There a
/// transformer runs on a bare JSON object; here each runs as Segment's engine runs it for a
/// destination filter — loaded from Segment settings behind an `all` matcher — on an SDK event.
/// An event has no fields of the caller's own at its top level, so the cases that invent one
/// (`mapMe`, `nest1`, `someTopLevelField`) use `properties.mapMe`, `properties.nest1`, and a
/// real top-level field (`userId`); the assertion each case makes carries over unchanged.
@Suite struct SegmentTransformerSuiteTests {
    private func rules(_ transformers: [JSON]) throws -> RuleSet {
        let settings: JSON = .array([.object(["matchers": .array([.object(["type": "all"])]), "transformers": .array([.array(transformers)])])])
        return try RuleSetLoader.load(settings.description, format: .segment)
    }

    private func transformer(_ type: String, _ config: JSON? = nil) -> JSON {
        var step: [String: JSON] = ["type": .string(type)]
        if let config { step["config"] = config }
        return .object(step)
    }

    /// The tests' "simple" event: a track with an email and a few properties.
    private func simpleEvent(_ properties: [String: JSON] = [:]) -> Event {
        var event = Event(type: .track, event: "Order Completed", properties: ["email": "test@example.com", "total": 42].merging(properties) { $1 })
        event.userId = "user-1"
        return event
    }

    @Test func unknownTypesAndMissingConfigsAreRefusedAtLoad() {
        #expect(throws: RuleLoadError.self) { try rules([transformer("not_a_transform", [:])]) }
        for type in ["drop_properties", "allow_properties", "sample_event"] {
            #expect(throws: RuleLoadError.self, "\(type) without config") { try rules([transformer(type)]) }
        }
        #expect(throws: Never.self) { try rules([transformer("drop")]) }
    }

    @Test func dropDropsAnyEvent() throws {
        let drop = try rules([transformer("drop")])
        #expect(drop.apply(to: simpleEvent()) == nil)
        #expect(drop.apply(to: Event(type: .identify)) == nil)
        let many = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("p\($0)", JSON.int(Int64($0))) })
        #expect(drop.apply(to: simpleEvent(many)) == nil)
    }

    @Test func dropPropertiesRemovesListedFieldsAtEveryLevel() throws {
        let listed = try rules([transformer("drop_properties", ["drop": ["properties": ["email", "phoneNumber"]]])])
        #expect(listed.apply(to: simpleEvent(["phoneNumber": "867-5309"]))?.properties == ["total": 42])

        let topLevel = try rules([transformer("drop_properties", ["drop": ["": ["userId"]]])])
        #expect(topLevel.apply(to: simpleEvent())?.userId == nil)

        let nest: JSON = ["nest2": ["nest3": ["nest4": ["nest5": "hai :3"]]]]
        let nested = try rules([transformer("drop_properties", ["drop": ["properties.nest1.nest2.nest3.nest4": ["nest5"]]])])
        #expect(nested.apply(to: simpleEvent(["nest1": nest]))?.properties?["nest1"] == ["nest2": ["nest3": ["nest4": [:]]]])

        let products: JSON = [["id": 875134, "category": "Clothing"], ["id": 875135, "category": "Sports"]]
        let inArrays = try rules([transformer("drop_properties", ["drop": ["properties.product": ["category"]]])])
        #expect(inArrays.apply(to: Event(type: .track, event: "x", properties: ["product": products]))?.properties == ["product": [["id": 875134], ["id": 875135]]])

        var many = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("p\($0)", JSON.int(Int64($0))) })
        many["nest1"] = nest
        #expect(nested.apply(to: simpleEvent(many))?.properties?["nest1"]?["nest2"]?["nest3"]?["nest4"] == [:])
    }

    @Test func allowPropertiesKeepsOnlyListedFieldsWhereItPoints() throws {
        let listed = try rules([transformer("allow_properties", ["allow": ["properties": ["email"]]])])
        #expect(listed.apply(to: simpleEvent(["phoneNumber": "867-5309"]))?.properties == ["email": "test@example.com"])

        let nest: JSON = ["nest2": ["nest3": ["nest4": ["nest5": "hai :3", "nest6": "bye ;_;"]]]]
        let nested = try rules([transformer("allow_properties", ["allow": ["properties.nest1.nest2.nest3.nest4": ["nest5"]]])])
        let kept = nested.apply(to: simpleEvent(["nest1": nest]))?.properties
        #expect(kept?["nest1"] == ["nest2": ["nest3": ["nest4": ["nest5": "hai :3"]]]])
        #expect(kept?.count == 3, "only the pointed-at object is filtered")

        // At the top level Segment's object becomes the listed fields alone; an event keeps what
        // makes it one (`type`, `messageId`, `timestamp`) — our documented difference.
        let topLevel = try rules([transformer("allow_properties", ["allow": ["": ["userId"]]])])
        let event = simpleEvent()
        let bare = try #require(topLevel.apply(to: event))
        #expect(bare.userId == "user-1" && bare.event == nil && bare.properties == nil)
        #expect(bare.type == .track && bare.messageId == event.messageId && bare.timestamp == event.timestamp)

        let products: JSON = [["id": 875134, "category": "Clothing"], ["id": 875135, "category": "Sports"]]
        let inArrays = try rules([transformer("allow_properties", ["allow": ["properties.product": ["id"]]])])
        #expect(inArrays.apply(to: Event(type: .track, event: "x", properties: ["product": products]))?.properties == ["product": [["id": 875134], ["id": 875135]]])
    }

    @Test func sampleEventKeepsNoneAtZeroAllAtOneAndTheSameSubsetAsThePercentGrows() async throws {
        try await offThePool {
            let none = try rules([transformer("sample_event", ["sample": ["percent": 0.0, "path": ""]])])
            let all = try rules([transformer("sample_event", ["sample": ["percent": 1.01, "path": ""]])])
            for _ in 0..<1_000 {
                #expect(none.apply(to: simpleEvent()) == nil)
                let event = simpleEvent()
                #expect(all.apply(to: event) == event)
            }
            let byPath = try rules([transformer("sample_event", ["sample": ["percent": 0.5, "path": "properties.sampleBy"]])])
            var generator = SeededGenerator(seed: 0x7472_616e)
            for _ in 0..<100 {
                let event = simpleEvent(["sampleBy": .double(Double.random(in: 0..<1, using: &generator))])
                let first = byPath.apply(to: event)
                for _ in 0..<100 { #expect(byPath.apply(to: event) == first) }
                var kept = false
                for step in 0...101 {
                    let percent = try rules([transformer("sample_event", ["sample": ["percent": .double(Double(step) / 100), "path": "properties.sampleBy"]])])
                    let keeps = percent.apply(to: event) != nil
                    if kept { #expect(keeps, "kept at a lower percent, dropped at \(step) %") }
                    kept = kept || keeps
                }
                #expect(kept)
            }
        }
    }

    @Test func mapPropertiesSetsCopiesMovesAndConverts() throws {
        func map(_ spec: JSON, on properties: [String: JSON] = [:]) throws -> [String: JSON]? {
            try rules([transformer("map_properties", ["map": ["properties.mapMe": spec]])]).apply(to: simpleEvent(properties))?.properties
        }
        #expect(try map(["set": true])?["mapMe"] == true)
        let copied = try map(["copy": "properties.copyMe"], on: ["copyMe": "Beam me up, Scotty!"])
        #expect(copied?["mapMe"] == "Beam me up, Scotty!" && copied?["copyMe"] == "Beam me up, Scotty!")
        let nothingToCopy = try map(["copy": "properties.copyMe"])
        #expect(nothingToCopy?["mapMe"] == nil && nothingToCopy?["copyMe"] == nil)
        let moved = try map(["move": "properties.moveMe"], on: ["moveMe": "I like to move it"])
        #expect(moved?["mapMe"] == "I like to move it" && moved?["moveMe"] == nil)
        let nothingToMove = try map(["move": "properties.moveMe"])
        #expect(nothingToMove?["mapMe"] == nil && nothingToMove?["moveMe"] == nil)
        #expect(try map(["set": "Someone set us up the bomb"])?["mapMe"] == "Someone set us up the bomb")
        #expect(try map(["set": "Someone set us up the bomb"], on: ["mapMe": "not the message"])?["mapMe"] == "Someone set us up the bomb")
        for falsey: JSON in [.null, false, 0, []] {
            #expect(try map(["set": falsey])?["mapMe"] == falsey)
        }
        let conversions: [(JSON, JSON)] = [
            (1234, "1234"), (.null, "null"), ([], []), (["foo": "bar"], ["foo": "bar"]), ("already a string", "already a string"),
            (false, "false"),
        ]
        for (value, converted) in conversions {
            #expect(try map(["to_string": true], on: ["mapMe": value])?["mapMe"] == converted, "to_string of \(value)")
        }
        // JavaScript's `undefined` becomes "undefined" there; JSON has no such value, and a
        // field that is not there stays missing.
        #expect(try map(["to_string": true])?["mapMe"] == nil)
    }
}
