import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import TypedEventsApp

/// Values built through the generated types satisfy the same plan on the device: 1,000 random
/// valid instances of each event (and of the traits) go through an instance that enforces the
/// plan in `block` mode, and none is a violation or blocked.
@Suite struct TypedEventsTests {
    /// A small seeded generator (SplitMix64), so a failure is reproducible.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func double(upTo limit: Double) -> Double { Double(next() % 1_000_000) / 1_000_000 * limit }
        mutating func bool() -> Bool { next() & 1 == 0 }
        mutating func text(_ length: ClosedRange<Int>) -> String {
            let alphabet = Array("abcXYZ019 -_éü🚀\"\\")
            return String((0..<int(length)).map { _ in alphabet[int(0...alphabet.count - 1)] })
        }
        mutating func maybe<Value>(_ make: (inout Random) -> Value) -> Value? { bool() ? make(&self) : nil }
        mutating func pick<Value: CaseIterable>(_ type: Value.Type) -> Value {
            let all = Array(type.allCases)
            return all[int(0...all.count - 1)]
        }
    }

    /// An instance that enforces the app's plan in `block` mode, its events kept by `capture`.
    static func enforcingThePlan(into capture: CapturingDestination) throws -> Analytics {
        let plan = try Checkout.trackingPlan()
        return Analytics.capturing(into: capture) { options in
            options.trackingPlan = plan
            options.trackingPlanMode = .block
        }
    }

    @Test func randomValidInstancesPassThePlanInBlockMode() async throws {
        let capture = CapturingDestination()
        let analytics = try Self.enforcingThePlan(into: capture)
        var random = Random(state: 52)
        let perEvent = 1_000
        for index in 0..<perEvent {
            let items = (0..<random.int(1...4)).map { _ in
                PlannedEvents.OrderCompleted.ItemsItem(sku: random.text(1...12), quantity: random.int(1...99), gift: random.maybe { $0.bool() })
            }
            analytics.orderCompleted(
                orderId: random.text(1...64), total: random.double(upTo: 10_000), currency: random.pick(PlannedEvents.OrderCompleted.Currency.self),
                items: items, coupon: random.maybe { $0.text(0...32) }, placedAt: random.maybe { _ in Date(timeIntervalSince1970: Double(index) * 977) })
            analytics.track(PlannedEvents.ProductViewed(
                productId: random.text(1...20), category: random.maybe { $0.pick(PlannedEvents.ProductViewed.Category.self) }, price: random.maybe { $0.double(upTo: 500) }))
            analytics.signedUp(method: random.pick(PlannedEvents.SignedUp.Method.self), referralCode: random.maybe { $0.text(0...16) })
            analytics.identify("user-\(index)", traits: PlannedEvents.IdentifyTraits(email: random.text(3...40), age: random.maybe { $0.int(13...120) }))
            analytics.group("group-\(index)", traits: PlannedEvents.GroupTraits(name: random.text(1...30), seats: random.maybe { $0.int(1...500) }))
        }
        await analytics.performAndWait { _ in }
        let info = await analytics.getDebugInfo()
        #expect(info.stats.dropped[.trackingPlan] == nil)
        let events = capture.events
        #expect(events.count == 5 * perEvent)
        #expect(Dictionary(grouping: events.compactMap(\.event), by: { $0 }).mapValues(\.count)
            == ["Order Completed": perEvent, "Product Viewed": perEvent, "Signed Up": perEvent])
        // Every typed call names the plan it was generated from.
        #expect(events.allSatisfy { $0.context["trackingPlan"]?["sha256"]?.stringValue == PlannedEvents.sha256 })
        await analytics.shutdown()
    }

    /// The hash the code carries is the hash of the plan the app ships.
    @Test func theHashIsThePlanFilesHash() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typed-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tracking-plan.json")
        try Checkout.trackingPlanData().write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(Checkout.planHash.count == 64)
        #expect(text.hasPrefix(Checkout.planHash + " "), "\(text)")
    }

    /// An event the plan does not list is blocked (`unplanned: block`), so the check is live.
    @Test func anUnplannedEventIsBlocked() async throws {
        let capture = CapturingDestination()
        let analytics = try Self.enforcingThePlan(into: capture)
        analytics.track("Not In The Plan")
        analytics.productViewed(productId: "p-1")
        await analytics.performAndWait { _ in }
        #expect(capture.events.compactMap(\.event) == ["Product Viewed"])
        await analytics.shutdown()
    }
}
