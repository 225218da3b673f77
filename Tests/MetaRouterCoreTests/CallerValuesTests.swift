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
