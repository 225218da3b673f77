import MetaRouterEventsGenerator
import Testing

/// `metarouter plan status`: which planned events the code calls, which it never calls, and
/// which untyped names it sends that the plan does not list.
@Suite struct PlanUsageTests {
    @Test func typedCallsNamedCallsAndUnplannedNames() throws {
        let plan = #"{"events": {"Order Completed": {}, "Product Viewed": {}, "Signed Up": {}, "Cart Emptied": {}}}"#
        let sources = [
            "analytics.orderCompleted(orderId: id, total: 1)\nanalytics.track(ProductViewed(productId: p))",
            #"analytics.track("Signed Up", properties: nil)"# + "\n" + #"analytics.track("Legacy \"Quoted\" Event")"# + "\nanalytics.track( \"Button Tapped\")",
            "let name = \"Cart Emptied\" // not a call\nuntrack(\"Not A Track Call\")\nretrack(\"Neither\")",
        ]
        let usage = try EventsGenerator.usage(plan: plan, sources: sources)
        #expect(usage.called == ["Order Completed", "Product Viewed", "Signed Up"])
        #expect(usage.neverCalled == ["Cart Emptied"])
        #expect(usage.unplanned == ["Button Tapped", "Legacy \"Quoted\" Event"])
    }

    @Test func aPlanThatCannotBeReadIsAnError() {
        #expect(throws: GenerationError.self) { try EventsGenerator.usage(plan: "{", sources: []) }
    }
}
