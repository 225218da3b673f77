import Foundation
import MetaRouterEventsGenerator
import MetaRouterTesting
import Testing

/// The generator as a build uses it: a plan becomes Swift that compiles against the SDK, a
/// wrong call does not compile and says which property, and a hostile plan gives code that
/// compiles or one message naming the plan entry — never a crash.
@Suite struct EventsGeneratorTests {
    static let plan = try! String(contentsOf: Compiler.root.appendingPathComponent("Tests/MetaRouterEventsGeneratorTests/Fixtures/tracking-plan.json"), encoding: .utf8)

    static let calls = """
        import Foundation
        import MetaRouter
        func use(_ analytics: Analytics) {
            analytics.orderCompleted(orderId: "o-1", total: 19.99, currency: .eur, items: [.init(sku: "A", quantity: 2)], placedAt: Date())
            analytics.track(PlannedEvents.OrderCompleted(orderId: "o-2", total: 5, class: true, coupon: nil, extra: ["any": [1, "two"]]))
            analytics.identify("u1", traits: PlannedEvents.IdentifyTraits(email: "a@example.com", age: 30))
            analytics.group("g1", traits: PlannedEvents.GroupTraits(name: "Acme"))
            analytics.flushEvent()
            analytics._1stLaunch()
            analytics.signedUp(plan: .free)
            _ = PlannedEvents.sha256
        }
        /// The app's own names stay its own: planned types live in `PlannedEvents`.
        struct AppError: Error {}
        """

    @Test func thePlanBecomesSwiftThatCompiles() async throws {
        let code = try EventsGenerator.generate(plan: Self.plan)
        let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code, "Use.swift": Self.calls])
        #expect(result.succeeded, "\(result.output)")
        #expect(code.contains("self.orderId = try PlannedEvents.need(container, \"order_id\")"), "the wire keeps the plan's names")
        #expect(code.contains("static var eventName: Swift.String { \"1st Launch 🚀\" }"))
    }

    /// A nested object or enum with the same generated type as an earlier one is declared once
    /// and named by each parent's typealias; one that differs (a value, a description) is not
    /// shared. Values of one event's nested types are the other's, and properties are constants.
    @Test func repeatedSchemasShareOneType() async throws {
        let currency: [String: Any] = ["type": "string", "enum": ["USD", "EUR"]]
        let address: [String: Any] = ["type": "object", "required": ["city"], "properties": ["city": ["type": "string"], "zip": ["type": "string"]]]
        let event: ([String: Any]) -> [String: Any] = { extra in
            ["properties": ["type": "object", "properties": ["currency": currency, "address": address, "lines": ["type": "array", "items": address]].merging(extra) { $1 }]]
        }
        let plan = String(decoding: try JSONSerialization.data(withJSONObject: ["events": [
            "A": event([:]), "B": event(["other": ["type": "string", "enum": ["USD", "EUR", "GBP"]]]),
            "C": event(["currency": ["type": "string", "enum": ["USD", "EUR"], "description": "Money."]]),
        ]], options: [.sortedKeys]), as: UTF8.self)
        let code = try EventsGenerator.generate(plan: plan)
        #expect(code.components(separatedBy: "enum A_Currency:").count == 2)
        #expect(code.components(separatedBy: "struct A_Address:").count == 2)
        #expect(!code.contains("struct A_LinesItem:") && !code.contains("struct B_Address:"), "the same object under another name is the same type")
        #expect(code.contains("typealias Currency = PlannedEvents.A_Currency") && code.contains("typealias LinesItem = PlannedEvents.A_Address"))
        #expect(code.contains("enum B_Other:"), "other values, another type")
        #expect(code.contains("let currency: Currency?"))
        let use = """
            import MetaRouter
            func use(_ analytics: Analytics) {
                let address: PlannedEvents.A.Address = PlannedEvents.B.Address(city: "Oslo")
                let currency: PlannedEvents.B.Currency = PlannedEvents.A.Currency.eur
                analytics.a(address: address, currency: currency, lines: [address])
                analytics.b(address: address, currency: .usd, other: .gbp)
                analytics.c(currency: .usd)
            }
            """
        let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code, "Use.swift": use])
        #expect(result.succeeded, "\(result.output)")
    }

    @Test func generationIsDeterministic() throws {
        #expect(try EventsGenerator.generate(plan: Self.plan) == EventsGenerator.generate(plan: Self.plan))
    }

    /// A missing required property, a wrong type and an unknown enum case do not compile, and
    /// the diagnostic names (or points at) the property.
    @Test(arguments: [
        ("analytics.orderCompleted(total: 1)", "orderId", "missing argument"),
        ("analytics.orderCompleted(orderId: 5, total: 1)", "orderId: 5", "expected argument type 'String'"),
        ("analytics.orderCompleted(orderId: \"x\", total: 1, currency: .jpy)", "currency: .jpy", "has no member 'jpy'"),
        ("analytics.track(PlannedEvents.OrderCompleted(orderId: \"x\", total: \"free\"))", "total: \"free\"", "expected argument type 'Double'"),
    ])
    func aWrongCallDoesNotCompile(call: String, property: String, message: String) async throws {
        let code = try EventsGenerator.generate(plan: Self.plan)
        let snippet = "import MetaRouter\nfunc wrong(_ analytics: Analytics) {\n    \(call)\n}\n"
        let result = try await Compiler.typecheck(["MetaRouterEvents.swift": code, "Wrong.swift": snippet])
        #expect(!result.succeeded)
        let error = try #require(result.errors.first(where: { $0.contains("Wrong.swift") }), "\(result.output)")
        #expect(error.contains(message), "\(error)")
        // The diagnostic names the property, or points into its argument.
        let line = "    \(call)"
        let name = String(property.prefix { $0 != ":" })
        let column = error.split(separator: ":").dropFirst(2).first.flatMap { Int($0) } ?? 0
        let first = line.range(of: property).map { line.distance(from: line.startIndex, to: $0.lowerBound) + 1 } ?? -1
        #expect(error.lowercased().contains(name.lowercased()) || (first..<(first + property.count)).contains(column), "\(error)")
    }
}
