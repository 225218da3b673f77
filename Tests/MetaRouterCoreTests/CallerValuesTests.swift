import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// Holds the executor on its first event until the test opens the gate, so that everything
/// tracked meanwhile is still waiting in the ingress.
private final class ExecutorGate: Plugin, @unchecked Sendable {  // the semaphores are thread-safe; `held` is touched only on the executor
    let type = PluginType.before
    let entered = DispatchSemaphore(value: 0)
    let open = DispatchSemaphore(value: 0)
    private var held = false

    func execute(event: Event) -> Event? {
        if !held {
            held = true
            entered.signal()
            open.wait()
        }
        return event
    }
}

@Suite struct CallerValuesTests {
    /// The caller mutates its reference-type values right after `track` returns, while the
    /// executor has not yet run the event: the event keeps what was passed at the call.
    @Test func mutableFoundationValuesAreCapturedAtTheCall() async {
        let gate = ExecutorGate()
        let capture = CapturingDestination()
        let client = makeClient([gate, capture])
        client.track("hold")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                gate.entered.wait()
                done.resume()
            }
        }
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
        await client.settle()
        let events = capture.events
        #expect(events.count == 8)
        guard events.count == 8 else { return }
        #expect(events[0].properties == events[1].properties)
        #expect(events[0].properties == ["path": "/checkout", "tier": "gold"])
        #expect(events[2].properties == ["count": .int(2), "limit": .int(9)])
        #expect(events[3].properties?["price"] == .double(19.99))
        #expect(events[4].properties?["on"] == .bool(true))
        #expect(events[5].traits == ["plan": "pro"] && events[5].userId == "user-1")
        #expect(events[6].traits == ["seats": .int(5)] && events[6].groupId == "group-1")
        #expect(events[7].properties == ["path": "/x", "when": .string(Timestamp.string(from: date))])
    }
}
