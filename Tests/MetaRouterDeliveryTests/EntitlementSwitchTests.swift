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

    private static func instance(_ directory: TemporaryDirectory) -> MetaRouter.Analytics {
        var options = InitOptions(writeKey: "switch-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.defaultPlugins.remove(.delivery)
        options.entitlements = EntitlementOptions(source: EchoSource())
        return MetaRouter.Analytics.instance(for: options)
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
        await analytics.engine.settle()
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
        await analytics.engine.settle()
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
        let analytics = MetaRouter.Analytics.instance(for: options)
        try await offThePool {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for round in 0..<2_000 { analytics.identify((thread + round).isMultiple(of: 2) ? "ann" : "bob") }
            }
        }
        analytics.identify("bob")
        await analytics.engine.settle()
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

    /// Holds every fetch for `held` until ``release()``; answers the others at once with
    /// `user:<id>`.
    private struct HoldingSource: EntitlementSource {
        let held: String
        private let waiting = Locked<(released: Bool, fetches: [CheckedContinuation<Void, Never>])>((false, []))

        init(held: String) { self.held = held }

        func entitlements(for userId: String, etag: String?) async throws -> EntitlementAnswer {
            if userId == held {
                await withCheckedContinuation { continuation in
                    let now = waiting.withLock { state -> Bool in
                        if !state.released { state.fetches.append(continuation) }
                        return state.released
                    }
                    if now { continuation.resume() }
                }
            }
            return .entitlements(["user:\(userId)"], etag: nil)
        }

        func submitPurchase(transactionId: String, evidence: String, userId: String?, anonymousId: String?) async throws {}

        func release() {
            let fetches = waiting.withLock { state in
                state.released = true
                defer { state.fetches = [] }
                return state.fetches
            }
            for fetch in fetches { fetch.resume() }
        }
    }

    /// A fetch for a previous user whose answer does not come holds up nothing: the user in
    /// force is fetched at once (before, the one fetch in flight held up the next for as long
    /// as its answer took), and the late answer, when it comes, is dropped.
    @Test func aFetchForAPreviousUserThatNeverAnswersDoesNotHoldUpTheUserInForce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = HoldingSource(held: "ann")
        var options = InitOptions(writeKey: "held-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.defaultPlugins.remove(.delivery)
        options.entitlements = EntitlementOptions(source: source)
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("ann")
        await analytics.engine.settle()
        analytics.identify("bob")
        await analytics.engine.settle()
        let deadline = ContinuousClock.now + .seconds(10)
        while analytics.entitlements() != ["user:bob"], ContinuousClock.now < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(analytics.entitlements() == ["user:bob"])
        source.release()
        #expect(try await analytics.refreshEntitlements() == ["user:bob"])
        #expect(analytics.entitlements() == ["user:bob"])
        await analytics.shutdown()
    }

    /// Issue #62, item 6: 8 threads switch between ann (answers held back 0–8 ms) and bob 2,000
    /// times each while 2 threads read, with two busy threads per core all along; then
    /// `identify("bob")`, and `identify("ann")` `METAROUTER_ENTITLEMENT_STORM_HOLD` seconds later
    /// (2, as in the issue). Each time the user gets a set the server never gave before, so only
    /// a fetch made after the switch serves it: ann's is served within 2 s of the call, and no
    /// read after `identify("ann")` returns serves bob's set. Before, the executor applied the
    /// last switch 12–30 s after the call here (every switch of the storm read a stored set
    /// from disk). `METAROUTER_ENTITLEMENT_STORM_RUNS` sets the rounds (20 when measuring).
    ///
    /// It brings its own load (busy threads on every core), so it runs in a step of its own
    /// (`METAROUTER_ENTITLEMENT_STORM=1`, `.ci/run`): beside the parallel suite, above all under
    /// ThreadSanitizer, its hogs starve the other tests' deadlines.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["METAROUTER_ENTITLEMENT_STORM"] != nil))
    func withEveryCoreBusyTheLastUsersSetIsServedWithinTwoSecondsOfTheCall() async throws {
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["METAROUTER_ENTITLEMENT_STORM_RUNS"].flatMap(Int.init) ?? 2
        let hold = environment["METAROUTER_ENTITLEMENT_STORM_HOLD"].flatMap(Double.init) ?? 2
        let collector = try await Collector.start()
        defer { collector.stop() }
        let hogs = CPUHogs()
        defer { hogs.stop() }
        for round in 1...max(1, rounds) {
            let outcome = try await Self.stormThenSwitch(collector, round: round, hold: hold)
            print("entitlement storm \(round)/\(rounds): \(outcome)")
            #expect(outcome.wrongReads == 0, "round \(round): \(outcome.wrongReads) reads served bob's set after identify(ann)")
            // Bob's switch is applied after the storm's 16,000 queued identify calls: 0.5–1.7 s
            // here, 4–5 s under ThreadSanitizer, 12–30 s when every switch read a file.
            #expect(outcome.bob.served <= 10, "round \(round): \(outcome)")
            #expect(outcome.ann.served <= 2, "round \(round): \(outcome)")
        }
        #expect(hogs.work > 0)
    }

    /// A switch as timed from its call: to the executor applying it, and to the user's new set
    /// being served (`.infinity`: not within 20 s); the GETs for the user the server saw since.
    private struct SwitchTiming: CustomStringConvertible {
        var applied: Double
        var served: Double
        var fetches: Int
        var description: String {
            String(format: "applied after %.3f s, served after %.3f s, %d GET(s)", applied, served, fetches)
        }
    }

    private struct StormOutcome: CustomStringConvertible {
        var bob: SwitchTiming
        var ann: SwitchTiming
        var wrongReads: Int
        var description: String { "bob \(bob); ann \(ann); \(wrongReads) wrong reads" }
    }

    /// A switch called and not yet timed.
    private struct Switch: Sendable {
        let user: String
        let set: Set<String>
        let called: ContinuousClock.Instant
        let applied: Locked<ContinuousClock.Instant?>
        let fetchesBefore: Int
    }

    private static func stormThenSwitch(_ collector: Collector, round: Int, hold: Double) async throws -> StormOutcome {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var table = ["ann": ["pro"], "bob": ["basic"]]
        try await collector.entitlements(table, delays: ["ann": 0.008])
        var options = InitOptions(writeKey: "busy-\(UUID())", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = RecordingLogSink()
        options.defaultPlugins.remove(.delivery)
        options.entitlements = EntitlementOptions()
        let analytics = MetaRouter.Analytics.instance(for: options)
        // Every change of the set served wakes the waiter (off the pool), which reads it.
        let reported = DispatchSemaphore(value: 0)
        analytics.onEntitlementsChange { _ in reported.signal() }
        func fetches(_ user: String) async throws -> Int {
            try await collector.requests().filter { $0.path == "/v1/entitlements?userId=\(user)" }.count
        }
        /// Gives `user` a set never served before and switches to them.
        func begin(_ user: String, then: @Sendable () -> Void = {}) async throws -> Switch {
            let fresh = (table[user] ?? []) + ["round-\(round)"]
            table[user] = fresh
            try await collector.entitlements(table, delays: ["ann": 0.008])
            let before = try await fetches(user)
            let applied = Locked<ContinuousClock.Instant?>(nil)
            let called = ContinuousClock.now
            analytics.identify(user)
            then()
            analytics.engine.perform { _ in
                applied.withLock { $0 = .now }
                reported.signal()
            }
            return Switch(user: user, set: Set(fresh), called: called, applied: applied, fetchesBefore: before)
        }
        /// Times a switch: served once the switch is applied (a storm's answers may serve the set
        /// for a moment before; after, it stays) and a read gives the new set.
        func time(_ change: Switch) async throws -> SwitchTiming {
            let servedAt = try await offThePool { () -> ContinuousClock.Instant? in
                let deadline = change.called + .seconds(20)
                while ContinuousClock.now < deadline {
                    if change.applied.current != nil, analytics.entitlements() == change.set { return .now }
                    _ = reported.wait(timeout: .now() + 0.002)
                }
                return nil
            }
            func seconds(_ at: ContinuousClock.Instant?) -> Double { at.map { Double(($0 - change.called) / .microseconds(1)) / 1e6 } ?? .infinity }
            return SwitchTiming(
                applied: seconds(change.applied.current), served: seconds(servedAt), fetches: try await fetches(change.user) - change.fetchesBefore)
        }
        let phase = Locked("storm")
        let wrong = Locked(0)
        let reading = Locked(true)
        async let readers: Void = offThePool {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                while reading.current {
                    let now = phase.current
                    let read = analytics.entitlements()
                    if now == "ann", read?.contains("basic") == true { wrong.withLock { $0 += 1 } }
                }
            }
        }
        try await offThePool {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for round in 0..<2_000 { analytics.identify((thread + round).isMultiple(of: 2) ? "ann" : "bob") }
            }
        }
        let toBob = try await begin("bob")
        let bob = try await time(toBob)
        // Identity stays on bob this long from the call, as in the issue: a scenario, not a wait
        // for an order.
        let left = max(0, hold - Double((ContinuousClock.now - toBob.called) / .milliseconds(1)) / 1000)
        try await offThePool { Thread.sleep(forTimeInterval: left) }
        let ann = try await time(try await begin("ann") { phase.withLock { $0 = "ann" } })
        reading.withLock { $0 = false }
        try await readers
        await analytics.shutdown()
        return StormOutcome(bob: bob, ann: ann, wrongReads: wrong.current)
    }
}
