import Foundation
import MetaRouterEventsGenerator
import MetaRouterTesting
import Testing

/// Plans drawn from the whole space users can write (``PlanSpace``), plus every plan that ever
/// failed (`Fixtures/KeptPlans`), become one plan; its generated code and an app around it
/// (``GeneratedAppSource``) are built with `swiftc` against the SDK in a fresh directory, and
/// random valid values of every generated type go through an instance enforcing the same plan in
/// `block` mode: none may be blocked. Seeded: the seed is printed with any failure, and the plan
/// is kept in the temporary directory to add to `Fixtures/KeptPlans`.
///
/// Size: `METAROUTER_GENERATIVE_EVENTS` events (60), `METAROUTER_GENERATIVE_VALUES` values per
/// type (10), `METAROUTER_GENERATIVE_SEED` to replay a run.
@Suite struct GenerativePlanTests {
    static let kept = Compiler.root.appendingPathComponent("Tests/MetaRouterEventsGeneratorTests/Fixtures/KeptPlans")

    static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
    }

    /// The kept plans' events and traits, in file order, under the drawn ones'.
    static func merged(_ drawn: [String: Any]) throws -> [String: Any] {
        var plan = drawn
        var events = drawn["events"] as? [String: Any] ?? [:]
        let files = (try? FileManager.default.contentsOfDirectory(at: kept, includingPropertiesForKeys: nil)) ?? []
        for file in files.filter({ $0.pathExtension == "json" }).sorted(by: { $0.path < $1.path }) {
            let keptPlan = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
            for (name, event) in keptPlan["events"] as? [String: Any] ?? [:] where events[name] == nil { events[name] = event }
        }
        plan["events"] = events
        return plan
    }

    @Test func drawnPlansBuildAndTheirValuesKeepThePlan() async throws {
        let seed = ProcessInfo.processInfo.environment["METAROUTER_GENERATIVE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max / 2)
        var space = PlanSpace(random: SeededRandom(seed: seed))
        let plan = try Self.merged(space.plan(events: Self.setting("METAROUTER_GENERATIVE_EVENTS", 60)))
        let planText = String(decoding: try JSONSerialization.data(withJSONObject: plan, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self)
        let replay = "seed \(seed) (METAROUTER_GENERATIVE_SEED=\(seed) swift test --filter GenerativePlanTests)"
        let keptCopy = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-generative-\(seed).json")

        let started = Date()
        let output = try EventsGenerator.files(plan: planText, shards: 4)
        let generateSeconds = Date().timeIntervalSince(started)

        // Values of every event and of the traits, as the plan accepts them.
        let perType = Self.setting("METAROUTER_GENERATIVE_VALUES", 10)
        var values: [[String: Any]] = []
        // A blank name gets no type (`track` never sends one); the device's plan keeps it.
        for (name, event) in (plan["events"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) where !name.isBlank {
            let schema = (event as? [String: Any])?["properties"] as? [String: Any] ?? [:]
            // An event's properties are an object, whatever its schema leaves open.
            for _ in 0..<perType { values.append(["kind": "track", "name": name, "value": space.value(schema) as? [String: Any] ?? [:]]) }
        }
        for kind in ["identify", "group"] {
            guard let schema = (plan[kind] as? [String: Any])?["traits"] as? [String: Any] else { continue }
            for _ in 0..<perType { values.append(["kind": kind, "name": kind, "value": space.value(schema) as? [String: Any] ?? [:]]) }
        }

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try planText.write(to: directory.url.appendingPathComponent("tracking-plan.json"), atomically: true, encoding: .utf8)
        try JSONSerialization.data(withJSONObject: values, options: [.sortedKeys]).write(to: directory.url.appendingPathComponent("values.json"))
        var files = ["App.swift": GeneratedAppSource.main(identify: plan["identify"] != nil, group: plan["group"] != nil)]
        for (index, code) in output.files.enumerated() { files["MetaRouterEvents-\(index).swift"] = code }
        let outcome = try await AppBuild.buildAndRun(files, in: directory.url)
        print("generative plans: \(replay): \((plan["events"] as? [String: Any])?.count ?? 0) events, \(values.count) values, "
            + "generated in \(String(format: "%.2f", generateSeconds)) s, built in \(String(format: "%.1f", outcome.buildSeconds)) s, \(output.warnings.count) warnings")

        let lastLine = outcome.runOutput.split(separator: "\n").last.map(String.init) ?? ""
        let report = (try? JSONSerialization.jsonObject(with: Data(lastLine.utf8))) as? [String: Any] ?? [:]
        let passed = outcome.built && outcome.runStatus == 0 && report["blocked"] as? Int == 0 && report["sent"] as? Int == values.count
            && report["delivered"] as? Int == values.count && (report["violations"] as? [String])?.isEmpty == true && report["hash"] as? Bool == true
        if !passed { try planText.write(to: keptCopy, atomically: true, encoding: .utf8) }
        #expect(outcome.built, "\(replay): the generated code does not build (plan kept at \(keptCopy.path); add it to Fixtures/KeptPlans):\n\(outcome.buildOutput.prefix(4000))")
        #expect(!outcome.built || passed, "\(replay): values were refused (plan kept at \(keptCopy.path)): \(outcome.runOutput.suffix(4000))")
        #expect(generateSeconds < 5, "\(replay)")
    }
}
