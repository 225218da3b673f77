import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// The registry's table answers as a dictionary would through every mix of adding, replacing
/// and removing, across the change from its list (up to eight) to its dictionary.
@Suite struct InstanceTableTests {
    @Test(arguments: [UInt64(1), 2, 3, 0x5EED])
    func answersAsADictionaryWould(seed: UInt64) async {
        let instances = (0..<4).map { _ in Analytics.capturing(into: CapturingDestination()) }
        var random = SeededRandom(seed: seed)
        var table = InstanceTable()
        var reference: [String: ObjectIdentifier] = [:]
        let keys = (0..<16).map { "key-\($0)" }
        for step in 0..<400 {
            let key = keys[random.next(keys.count)]
            if random.next(3) == 0 {
                table[key] = nil
                reference[key] = nil
            } else {
                let instance = instances[random.next(instances.count)]
                table[key] = instance
                reference[key] = ObjectIdentifier(instance)
            }
            for key in keys {
                #expect(table[key].map(ObjectIdentifier.init) == reference[key], "seed \(seed), step \(step), \(key)")
            }
            if random.next(50) == 0 {
                #expect(Set(table.removeAll().map(ObjectIdentifier.init)) == Set(reference.values), "seed \(seed), step \(step)")
                reference = [:]
                #expect(keys.allSatisfy { table[$0] == nil })
            }
        }
        for instance in instances { await instance.shutdown() }
    }
}
