import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// The registry's table answers as a dictionary would through every mix of adding, replacing,
/// removing and shutting down, across the change from its list (up to eight) to its
/// dictionary; an instance shutting down leaves a gate for its key until it has finished.
@Suite struct InstanceTableTests {
    @Test(arguments: [UInt64(1), 2, 3, 0x5EED])
    func answersAsADictionaryWould(seed: UInt64) async {
        // Two instances of each key's own, so an engine names its key.
        let keys = (0..<16).map { "key-\($0)" }
        let instances = (0..<keys.count * 2).map { _ in Analytics.capturing(into: CapturingDestination()) }
        let index = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        var random = SeededRandom(seed: seed)
        var table = InstanceTable()
        var reference: [String: ObjectIdentifier] = [:]
        var closing: [(key: String, engine: ObjectIdentifier)] = []
        for step in 0..<400 {
            let key = keys[random.next(keys.count)]
            let own = instances[index[key]! * 2 + random.next(2)]
            switch random.next(6) {
            case 0, 1:
                table[key] = nil
                reference[key] = nil
            case 2:
                // An instance starts shutting down (when the table holds it), or one finishes.
                let instance = own
                if random.next(2) == 0 {
                    let held = reference[key] == ObjectIdentifier(instance)
                    #expect(table.beginClosing(key: key, engine: instance.engine) == held, "seed \(seed), step \(step)")
                    if held {
                        reference[key] = nil
                        closing.append((key, ObjectIdentifier(instance.engine)))
                    }
                } else {
                    let index = closing.firstIndex { $0.engine == ObjectIdentifier(instance.engine) }
                    #expect((table.finishClosing(instance.engine) != nil) == (index != nil), "seed \(seed), step \(step)")
                    if let index { closing.remove(at: index) }
                }
            default:
                let instance = own
                table[key] = instance
                reference[key] = ObjectIdentifier(instance)
            }
            for key in keys {
                #expect(table[key].map(ObjectIdentifier.init) == reference[key], "seed \(seed), step \(step), \(key)")
                #expect((table.predecessorGate(for: key) != nil) == closing.contains { $0.key == key }, "seed \(seed), step \(step), \(key)")
            }
            if random.next(50) == 0 {
                let all = table.beginClosingAll()
                #expect(Set(all.map(ObjectIdentifier.init)) == Set(reference.values), "seed \(seed), step \(step)")
                closing += reference.map { entry in (entry.key, ObjectIdentifier(instances.first { ObjectIdentifier($0) == entry.value }!.engine)) }
                reference = [:]
                #expect(keys.allSatisfy { table[$0] == nil })
            }
        }
        for instance in instances { await instance.shutdown() }
    }

    /// Two start gates in turn (a predecessor, then iOS's protected data): the body runs only
    /// once both are open, whichever opens first, and the message names the one still closed.
    @Test func startGatesOpenInTurn() {
        for predecessorFirst in [true, false] {
            let predecessor = PredecessorGate()
            let protected = HandGate()
            let gates = StartGates(first: predecessor, then: protected)
            let ran = Locked(0)
            gates.whenOpen { ran.withLock { $0 += 1 } }
            #expect(gates.waitingMessage == predecessor.waitingMessage)
            if predecessorFirst {
                predecessor.open()
                #expect(ran.current == 0)
                #expect(gates.waitingMessage == protected.waitingMessage)
                protected.open()
            } else {
                protected.open()
                #expect(ran.current == 0)
                predecessor.open()
            }
            #expect(ran.current == 1)
            gates.whenOpen { ran.withLock { $0 += 1 } }
            #expect(ran.current == 2, "a gate open already runs the body at once")
        }
    }
}

/// A gate the test opens by hand, with a message of its own.
private final class HandGate: StartGate {
    private let gate = PredecessorGate()
    func whenOpen(_ body: @escaping @Sendable () -> Void) { gate.whenOpen(body) }
    func open() { gate.open() }
    var waitingMessage: String { "waiting for the hand gate" }
}
