/// The app the generative test builds around the generated code: it declares names of its own
/// that a generated type must not hide (`AppError: Error`, `Text`, `Color`, `View`, and uses
/// `Task`, `Result`, `URL`, `Data`), decodes each value of `values.json` into its generated type
/// and sends it through an instance enforcing `tracking-plan.json` in `block` mode, then prints
/// one JSON line: what was sent, delivered and blocked, and the violations.
enum GeneratedAppSource {
    static func main(identify: Bool, group: Bool) -> String {
        """
        import Foundation
        import MetaRouter
        import MetaRouterTesting

        struct AppError: Error { let reason: String }
        struct Text { let value: String }
        struct Color { let name: String }
        protocol View {}
        extension Text: View {}

        final class Collected: @unchecked Sendable {
            private let lock = NSLock()
            private var items: [String] = []
            func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
            var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
        }

        func decoder() -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                guard let date = formatter.date(from: text) else { throw AppError(reason: "not a date: \\(text)") }
                return date
            }
            return decoder
        }

        func send<Planned: PlannedEvents.Event>(_ type: Planned.Type, _ data: Data, to analytics: Analytics) throws {
            analytics.track(try decoder().decode(Planned.self, from: data))
        }

        @main enum GeneratedApp {
        static func main() async throws {
        let plan = try TrackingPlan(json: String(contentsOfFile: "tracking-plan.json", encoding: .utf8))
        let violations = Collected()
        let problems = Collected()
        let failures = Collected()
        let capture = CapturingDestination()
        let analytics = Analytics.capturing(into: capture) { options in
            options.trackingPlan = plan
            options.trackingPlanMode = .block
            options.onPlanViolation = { report in violations.add("\\(report.name ?? "\\(report.type)"): \\(report.violations.map(\\.description))") }
            options.onInvalidInput = { problem in problems.add("\\(problem)") }
        }
        let values = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "values.json"))) as? [[String: Any]] ?? []
        var sent = 0
        let task: Task<Int, Never> = Task { 0 }
        let result: Result<Int, AppError> = .success(await task.value)
        for item in values {
            let name = item["name"] as? String ?? ""
            let data = try JSONSerialization.data(withJSONObject: item["value"] ?? [:], options: [.fragmentsAllowed])
            do {
                switch item["kind"] as? String {
                \(identify ? "case \"identify\": analytics.identify(\"user\", traits: try decoder().decode(PlannedEvents.IdentifyTraits.self, from: data))" : "")
                \(group ? "case \"group\": analytics.group(\"group\", traits: try decoder().decode(PlannedEvents.GroupTraits.self, from: data))" : "")
                default:
                    guard let type = PlannedEvents.types[name] else { throw AppError(reason: "no type for \\(name)") }
                    try send(type, data, to: analytics)
                }
                sent += 1
            } catch {
                failures.add("\\(item["kind"] ?? "") \\(name): \\(error) in \\(String(decoding: data, as: UTF8.self))")
            }
        }
        await analytics.performAndWait { _ in }
        let info = await analytics.getDebugInfo()
        let report: [String: Any] = [
            "sent": sent, "delivered": capture.events.count, "blocked": info.stats.dropped[.trackingPlan] ?? 0,
            "violations": Array(violations.all.prefix(20)), "problems": Array(problems.all.prefix(20)), "failures": Array(failures.all.prefix(20)),
            "hash": capture.events.allSatisfy { $0.context["trackingPlan"]?["sha256"]?.stringValue == PlannedEvents.sha256 },
            "own": [URL(fileURLWithPath: "/").path, "\\(Data().count)", Text(value: "t").value, Color(name: "c").name, "\\((try? result.get()) ?? -1)"],
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
        _ = await analytics.shutdown()
        }
        }

        """
    }
}
