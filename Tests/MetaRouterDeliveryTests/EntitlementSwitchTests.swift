import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Identity switches in tight loops, from several threads at once, while answers for earlier
/// users are still arriving: no read ever serves a set fetched for a user other than the one in
/// force. Run under ThreadSanitizer in CI.
@Suite struct EntitlementSwitchTests {
    /// Answers at once with the one key `user:<id>`: a read tells whose set it is.
    private struct EchoSource: EntitlementSource {
        func entitlements(for userId: String, etag: String?) async throws -> EntitlementAnswer {
            .entitlements(["user:\(userId)"], etag: nil)
        }

        func submitPurchase(transactionId: String, evidence: String, userId: String?, anonymousId: String?) async throws {}
    }

    private static func instance(_ directory: TemporaryDirectory) -> MetaRouterClient {
        var options = InitOptions(writeKey: "switch-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.defaultPlugins.remove(.delivery)
        options.entitlements = EntitlementOptions(source: EchoSource())
        return MetaRouter.Analytics.concreteInstance(for: options)
    }

    /// A set read is either none or exactly one user's.
    private static func isOneUsersSet(_ read: Set<String>?) -> Bool {
        guard let read else { return true }
        return read.count == 1 && read.first!.hasPrefix("user:")
    }

    @Test func aReadAfterIdentifyNeverServesThePreviousUsersSet() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let analytics = Self.instance(directory)
        // One thread switches; it reads right after each call. Two threads read all along.
        let wrong = Locked(0)
        let reads = Locked(0)
        let switching = Locked(true)
        async let readers: Void = offThePool {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                while switching.current {
                    if !Self.isOneUsersSet(analytics.entitlements()) { wrong.withLock { $0 += 1 } }
                    reads.withLock { $0 += 1 }
                }
            }
        }
        try await offThePool {
            // Starts once both readers are reading (a wait on a thread of its own).
            while reads.current < 2 { sched_yield() }
            for round in 0..<3000 {
                let user = "u\(round % 5)"
                analytics.identify(user)
                let read = analytics.entitlements()
                if read != nil, read != ["user:\(user)"] { wrong.withLock { $0 += 1 } }
                if round % 7 == 0 { analytics.reset() }
            }
            switching.withLock { $0 = false }
        }
        try await readers
        #expect(wrong.current == 0)
        #expect(reads.current > 0)
        analytics.identify("last")
        await analytics.client.settle()
        #expect(try await analytics.refreshEntitlements() == ["user:last"])
        #expect(analytics.entitlements() == ["user:last"])
        await analytics.shutdown()
    }

    @Test func switchesFromSeveralThreadsSettleOnTheUserInForce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let analytics = Self.instance(directory)
        let wrong = Locked(0)
        try await offThePool {
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for round in 0..<800 {
                    analytics.identify("t\(thread)-\(round % 3)")
                    if !Self.isOneUsersSet(analytics.entitlements()) { wrong.withLock { $0 += 1 } }
                    if round % 11 == 0 { analytics.alias("t\(thread)-alias") }
                }
            }
        }
        #expect(wrong.current == 0)
        await analytics.client.settle()
        let user = try #require(await analytics.getDebugInfo().userId)
        let current = try await analytics.refreshEntitlements()
        #expect(current == ["user:\(user)"])
        #expect(analytics.entitlements() == ["user:\(user)"])
        await analytics.shutdown()
    }

    /// 8 threads switch between two users 16,000 times with the entitlement server up: the
    /// fetches are coalesced (one in flight at a time), and once identity settles the user in
    /// force gets their set, without anyone asking, after at most two round trips (the one in
    /// flight and theirs) — the last switch is never starved. Counted, not timed: on an idle
    /// machine that is milliseconds, well within the 2 s the issue asks.
    @Test func afterASwitchStormTheLastUsersSetArrivesWithinTwoSeconds() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await collector.entitlements(["ann": ["pro"], "bob": ["basic"]])
        var options = InitOptions(writeKey: "storm-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.defaultPlugins.remove(.delivery)
        options.entitlements = EntitlementOptions()
        let analytics = MetaRouter.Analytics.concreteInstance(for: options)
        try await offThePool {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for round in 0..<2_000 { analytics.identify((thread + round).isMultiple(of: 2) ? "ann" : "bob") }
            }
        }
        analytics.identify("bob")
        await analytics.client.settle()
        func fetches() async throws -> Int { try await collector.requests().filter { $0.path.hasPrefix("/v1/entitlements") }.count }
        let atSettle = try await fetches()
        let deadline = ContinuousClock.now + .seconds(60)
        while analytics.entitlements() != ["basic"], ContinuousClock.now < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(analytics.entitlements() == ["basic"])
        let asked = try await fetches()
        #expect(asked - atSettle <= 2, "\(asked - atSettle) fetches after identity settled")
        #expect(asked < 1_000, "\(asked) fetches for 16,001 switches")
        await analytics.shutdown()
    }
}
