import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// A plugin's rewrite of the shared context is made once and handed out again while the context
/// and the value it depends on stay the same; any change makes it anew, so no event ever gets
/// another event's result.
@Suite struct ContextRewriteTests {
    private let shared: [String: JSON] = ["app": ["name": "Shop"], "device": ["type": "phone"]]

    @Test func theSameContextAndValueGetTheRememberedResult() {
        var rewrite = ContextRewrite()
        var writes = 0
        func stamp(_ context: [String: JSON], _ id: Int64) -> [String: JSON] {
            rewrite.apply(to: context, for: .int(id)) {
                writes += 1
                $0["sessionId"] = .int(id)
            }
        }
        let first = stamp(shared, 7)
        #expect(first == shared.merging(["sessionId": 7]) { $1 })
        #expect(stamp(shared, 7) == first && writes == 1, "the shared context is stamped once")

        #expect(stamp(shared, 8)["sessionId"] == 8 && writes == 2, "a new value is written anew")
        var changed = shared
        changed["locale"] = "fr-FR"
        let stamped = stamp(changed, 8)
        #expect(stamped["locale"] == "fr-FR" && stamped["sessionId"] == 8 && writes == 3, "a changed context is written anew")
        #expect(stamp([:], 8) == ["sessionId": 8] && writes == 4)

        let rebuilt: [String: JSON] = ["device": ["type": "phone"], "app": ["name": "Shop"]]
        #expect(stamp(shared, 8) == shared.merging(["sessionId": 8]) { $1 })
        #expect(stamp(rebuilt, 8) == shared.merging(["sessionId": 8]) { $1 }, "an equal context built apart gets the same result")
        #expect(writes == 5)
    }

    /// Random contexts and values, against writing every time.
    @Test func resultsMatchWritingEveryTime() {
        var random = SeededGenerator(seed: 0x636f_6e74)
        var rewrite = ContextRewrite()
        let contexts: [[String: JSON]] = [shared, [:], ["device": ["type": "tablet"]], shared.merging(["x": 1]) { $1 }]
        for _ in 0..<2_000 {
            let context = contexts[Int.random(in: 0..<contexts.count, using: &random)]
            let id = JSON.string("id-\(Int.random(in: 0..<3, using: &random))")
            let result = rewrite.apply(to: context, for: id) { context in
                var device = context["device"]?.objectValue ?? [:]
                device["advertisingId"] = id
                context["device"] = .object(device)
            }
            var expected = context
            var device = expected["device"]?.objectValue ?? [:]
            device["advertisingId"] = id
            expected["device"] = .object(device)
            guard result == expected else {
                Issue.record("\(result) for \(context) and \(id)")
                return
            }
        }
    }
}
