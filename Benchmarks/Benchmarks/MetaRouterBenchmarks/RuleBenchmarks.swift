@preconcurrency import Benchmark
import Foundation
import MetaRouter
import MetaRouterCore

/// Twenty rules over the sample event: conditions, sets, removes, copies and drops; 16 of them
/// match it and 12 change it.
private func twentyRules() -> String {
    (0..<20).map { index in
        switch index % 5 {
        case 0: return "rule \"r\(index)\" { when event = \"Checkout \(index)\"\n drop }"
        case 1: return "rule \"r\(index)\" { when properties.price > \(index) and type = \"track\"\n set properties.tier\(index) = \"high\" }"
        case 2: return "rule \"r\(index)\" { when match(event, \"Product *\")\n set context.key\(index) = userId ?? anonymousId }"
        case 3: return "rule \"r\(index)\" { when exists(properties.sku)\n remove properties: [debug\(index)] }"
        default: return "rule \"r\(index)\" { when properties.currency in [\"EUR\", \"USD\"]\n copy properties.price to properties.amount\(index) }"
        }
    }.joined(separator: "\n")
}

/// Ten rules of three actions each (a set, a copy into another object, a delete), all matching
/// the sample event: what a rule that does several things costs.
private func threeActionRules() -> String {
    (0..<10).map { index in
        "rule \"m\(index)\" { when properties.price > \(index)\n set properties.a\(index) = \"x\"\n copy properties.sku to context.s\(index)\n delete properties.gone\(index) }"
    }.joined(separator: "\n")
}

/// What the twenty rules do to an event, written by hand against `Event`'s dictionaries: the
/// same reads, writes, growth and frees, without a rule engine. The engine cannot do less
/// dictionary work than this, so its time is the floor under the 20-rule set's.
private struct TwentyRulesByHand {
    private let tiers = [1, 6, 11, 16].map { (threshold: Double($0), key: "tier\($0)") }
    private let contextKeys = [2, 7, 12, 17].map { "key\($0)" }
    private let debugKeys = [3, 8, 13, 18].map { "debug\($0)" }
    private let amountKeys = [4, 9, 14, 19].map { "amount\($0)" }
    private let checkouts = Set([0, 5, 10, 15].map { "Checkout \($0)" })

    func apply(to event: Event) -> Event? {
        if let name = event.event, checkouts.contains(name) { return nil }
        var result = event
        let properties = event.properties ?? [:]
        let price = properties["price"], currency = properties["currency"]
        let hasSKU = properties.index(forKey: "sku") != nil
        let isProduct = event.event?.hasPrefix("Product ") ?? false
        let identity = event.userId.map(JSON.string) ?? event.anonymousId.map(JSON.string) ?? .null
        // Room for what the rules add, as the engine grows an object it writes to.
        var grownProperties = [String: JSON](minimumCapacity: properties.count + 16)
        for (key, value) in properties { grownProperties[key] = value }
        var grownContext = [String: JSON](minimumCapacity: event.context.count + 16)
        for (key, value) in event.context { grownContext[key] = value }
        for index in 0..<4 {
            if case .double(let amount)? = price, amount > tiers[index].threshold, event.type == .track {
                grownProperties[tiers[index].key] = .string("high")
            }
            if isProduct { grownContext[contextKeys[index]] = identity }
            if hasSKU { grownProperties.removeValue(forKey: debugKeys[index]) }
            if let price, currency == .string("EUR") || currency == .string("USD") { grownProperties[amountKeys[index]] = price }
        }
        result.properties = grownProperties
        result.context = grownContext
        return result
    }
}

/// The transform rules' run time, with the floor under it, and their compile time.
func registerRuleBenchmarks() {
    // One compiled condition on a typical event.
    Benchmark("rules: one condition", configuration: .init(scalingFactor: .mega, maxIterations: 20)) { benchmark in
        let event = sampleEvent()
        // A rule with a condition and no actions: the cost is the condition (and the rule loop).
        let rules = try! RuleSetLoader.load("rule { when event = \"Product Viewed\" and properties.price > 10 }", format: .text)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(rules.apply(to: event)) }
        benchmark.stopMeasurement()
    }

    // A 20-rule set (conditions, sets, copies, removes) on a typical event.
    ruleSetBenchmark("rules: 20-rule set", twentyRules())

    // The same set's dictionary work written by hand; refuses to run unless it leaves the event
    // exactly as the rules do.
    Benchmark("rules: 20-rule set written by hand (the floor)", configuration: .init(scalingFactor: .kilo, maxIterations: 200)) { benchmark in
        let event = sampleEvent()
        let byHand = TwentyRulesByHand()
        let rules = try! RuleSetLoader.load(twentyRules(), format: .text)
        guard let expected = rules.apply(to: event), byHand.apply(to: event) == expected else {
            fatalError("the hand-written set does not do what the rules do")
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(byHand.apply(to: event)) }
        benchmark.stopMeasurement()
    }

    // Ten rules of three actions each on a typical event.
    ruleSetBenchmark("rules: 10 rules of three actions", threeActionRules())

    // Parsing and compiling 100 rules.
    Benchmark("rules: compile 100 rules", configuration: .init(maxIterations: 50)) { benchmark in
        let text = (0..<5).map { _ in twentyRules() }.joined(separator: "\n")
        benchmark.startMeasurement()
        blackHole(try? RuleSetLoader.load(text, format: .text))
        benchmark.stopMeasurement()
    }
}

/// A benchmark of the rule set `text` applied to the sample event, a thousand calls a sample.
private func ruleSetBenchmark(_ name: String, _ text: String) {
    Benchmark(name, configuration: .init(scalingFactor: .kilo, maxIterations: 200)) { benchmark in
        let event = sampleEvent()
        let rules = try! RuleSetLoader.load(text, format: .text)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(rules.apply(to: event)) }
        benchmark.stopMeasurement()
    }
}
