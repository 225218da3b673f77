import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Entitlements against the collector's entitlement API over loopback HTTP: served from memory
/// for the identified user only, persisted per user, kept through an outage, cleared by 401 and
/// by an empty answer, revalidated with an ETag, reported in order, wiped by `forget()`; and
/// purchases queued on disk until the source takes them.
@Suite struct EntitlementsTests {
    /// A collector, a directory and an identity store that outlive one instance, as an app's do
    /// across launches.
    private struct Setting {
        let collector: Collector
        let directory: TemporaryDirectory
        let store = InMemoryKeyValueStore()
        let writeKey = "entitlements-\(UUID())"

        init() async throws {
            collector = try await Collector.start()
            directory = try TemporaryDirectory()
        }

        func start(source: (any EntitlementSource)? = nil, logs: RecordingLogSink = RecordingLogSink()) -> MetaRouter.Analytics {
            var options = InitOptions(writeKey: writeKey, ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
            options.storageDirectory = directory.url
            options.keyValueStore = store
            options.logSink = logs
            options.entitlements = EntitlementOptions(source: source)
            return MetaRouter.Analytics.instance(for: options)
        }

        /// The purchase files waiting in the instance's entitlement folder.
        var purchaseFiles: [String] {
            let folder = directory.url.appendingPathComponent("entitlements").path
            return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("purchase-") }
        }

        func stop() {
            collector.stop()
            directory.remove()
        }
    }

    @Test func servesTheSetOfTheIdentifiedUserOnlyAndKeepsItAcrossLaunchesAndOutages() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": ["pro", "export"], "bob": ["basic"]])
        let first = setting.start()
        #expect(first.entitlements() == nil)
        first.identify("ann")
        #expect(try await first.refreshEntitlements() == ["pro", "export"])
        #expect(first.isEntitled("pro") && first.isEntitled("export") && !first.isEntitled("basic"))
        let asked = try await setting.collector.requests().filter { $0.path.hasPrefix("/v1/entitlements") }
        #expect(asked.first?.path == "/v1/entitlements?userId=ann")
        #expect(asked.first?.headers["authorization"] == "Basic " + Data("\(setting.writeKey):".utf8).base64EncodedString())

        // At the call, before the executor has seen it, ann's set is gone.
        first.identify("bob")
        #expect(first.entitlements() == nil && !first.isEntitled("pro"))
        #expect(try await first.refreshEntitlements() == ["basic"])
        await first.shutdown()

        // The next launch, during an outage: bob's stored set is served, and stays.
        try await setting.collector.entitlements([:], status: 503)
        let second = setting.start()
        #expect(await eventually { second.entitlements() == ["basic"] })
        await #expect(throws: EntitlementError.unavailable("HTTP 503")) { try await second.refreshEntitlements() }
        #expect(second.entitlements() == ["basic"])
        #expect(await second.getDebugInfo().entitlementsRefreshFailedAt != nil)
        // Switching back to ann serves her stored set, still offline; never bob's meanwhile
        // (the executor may have applied the switch already: then it is hers).
        second.identify("ann")
        let read = second.entitlements()
        #expect(read == nil || read == ["pro", "export"])
        #expect(await eventually { second.entitlements() == ["pro", "export"] })
        try await setting.collector.entitlements([:], drop: true)
        await #expect(throws: EntitlementError.self) { try await second.refreshEntitlements() }
        #expect(second.isEntitled("pro"))
        await second.shutdown()
    }

    /// `identify` on `shared` before `initialize`: the instance it binds to starts with another
    /// user stored, and switches to the kept call's user — never serving the stored one's set
    /// after the switch has run.
    @Test func anIdentifyKeptBeforeBindingSwitchesTheEntitlements() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": ["pro"], "bob": ["basic"]])
        let first = setting.start()
        first.identify("ann")
        #expect(try await first.refreshEntitlements() == ["pro"])
        await first.shutdown()

        let shared = MetaRouter.Analytics.unboundShared()
        shared.identify("bob")
        let second = setting.start()
        // It serves the stored user's set before it is bound.
        #expect(await eventually { second.entitlements() == ["pro"] })
        #expect(shared.bind(second))
        #expect(await eventually { second.entitlements() == ["basic"] }, "still \(second.entitlements() ?? [])")
        #expect(try await shared.refreshEntitlements() == ["basic"])
        await second.shutdown()
    }

    @Test func unauthorizedClearsTheSetAndAnEmptyAnswerMeansNone() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": ["pro"]])
        let first = setting.start()
        first.identify("ann")
        #expect(try await first.refreshEntitlements() == ["pro"])
        try await setting.collector.entitlements(["ann": ["pro"]], status: 401)
        await #expect(throws: EntitlementError.unauthorized) { try await first.refreshEntitlements() }
        #expect(first.entitlements() == nil && !first.isEntitled("pro"))
        await first.shutdown()

        // Nothing stored comes back at the next start.
        try await setting.collector.entitlements([:], status: 503)
        let second = setting.start()
        await #expect(throws: EntitlementError.self) { try await second.refreshEntitlements() }
        #expect(second.entitlements() == nil)

        try await setting.collector.entitlements(["ann": []])
        #expect(try await second.refreshEntitlements() == [])
        #expect(second.entitlements() == [] && !second.isEntitled("pro"))
        await second.shutdown()
    }

    @Test func aSecondRefreshRevalidatesWithTheETag() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": ["pro"]])
        let analytics = setting.start()
        analytics.identify("ann")
        #expect(try await analytics.refreshEntitlements() == ["pro"])
        #expect(try await analytics.refreshEntitlements() == ["pro"])
        let asked = try await setting.collector.requests().filter { $0.path.hasPrefix("/v1/entitlements") }
        let revalidated = try #require(asked.last)
        #expect(revalidated.headers["if-none-match"] != nil)
        #expect(analytics.entitlements() == ["pro"])
        await analytics.shutdown()
    }

    @Test func changesAreReportedInOrderToTheCallbackAndTheStream() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": ["pro"], "bob": ["basic"]])
        let analytics = setting.start()
        let called = Locked<[EntitlementChange]>([])
        let streamed = Locked<[EntitlementChange]>([])
        analytics.onEntitlementsChange { change in called.withLock { $0.append(change) } }
        let stream = analytics.entitlementChanges
        let reader = Task { for await change in stream { streamed.withLock { $0.append(change) } } }
        analytics.identify("ann")
        _ = try await analytics.refreshEntitlements()
        analytics.identify("bob")
        _ = try await analytics.refreshEntitlements()
        await analytics.resetAndWait()
        let expected = [
            EntitlementChange(userId: "ann", old: nil, new: ["pro"]), EntitlementChange(userId: "bob", old: ["pro"], new: nil),
            EntitlementChange(userId: "bob", old: nil, new: ["basic"]), EntitlementChange(userId: nil, old: ["basic"], new: nil),
        ]
        #expect(called.current == expected)
        await analytics.shutdown()
        await reader.value
        #expect(streamed.current == expected)
    }

    @Test func purchasesWaitOnDiskUntilTheSourceTakesThemOnceEach() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": []], purchaseStatus: 503)
        let first = setting.start()
        first.identify("ann")
        first.recordPurchase(transactionId: "tx-1", evidence: "grant:pro")
        first.recordPurchase(transactionId: "tx-1", evidence: "grant:pro")
        let refused = try await setting.collector.waitFor { $0.contains { $0.path == "/v1/purchases" } }
        #expect(refused.filter { $0.path == "/v1/purchases" }.allSatisfy { $0.status == 503 })
        await first.shutdown()
        #expect(setting.purchaseFiles.count == 1)

        try await setting.collector.entitlements(["ann": []])
        let second = setting.start()
        #expect(await eventually { second.entitlements() == ["pro"] })
        let sent = try await setting.collector.requests().filter { $0.path == "/v1/purchases" }
        #expect(sent.filter { $0.status == 200 }.count == 1)
        #expect(sent.allSatisfy { $0.headers["idempotency-key"] == "tx-1" && $0.body?["evidence"]?.stringValue == "grant:pro" })
        #expect(sent.last?.body?["userId"]?.stringValue == "ann")
        #expect(await eventually { setting.purchaseFiles.isEmpty })
        await second.shutdown()
    }

    /// The source is down and a loop records 10,000 purchases: 100 are kept (on disk, and
    /// handed over once it is back), every other call is told at once that its purchase is not
    /// kept; evidence is capped by bytes too, and a restart counts what waits on disk.
    @Test func waitingPurchasesAreCappedAndEveryCallIsToldWhetherItsPurchaseIsKept() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": []], purchaseStatus: 503)
        let logs = RecordingLogSink()
        let first = setting.start(logs: logs)
        first.identify("ann")
        var answers: [PurchaseRecording] = []
        for index in 0..<10_000 { answers.append(first.recordPurchase(transactionId: "tx-\(index)", evidence: "grant:pro")) }
        #expect(answers.prefix(100).allSatisfy { $0 == .queued })
        #expect(answers.dropFirst(100).allSatisfy { if case .refused(let reason) = $0 { reason.contains("at most 100") } else { false } })
        #expect(first.recordPurchase(transactionId: "tx-7", evidence: "grant:pro") == .alreadyWaiting)
        #expect(first.recordPurchase(transactionId: "", evidence: "x") == .refused(reason: "the transaction id is empty"))
        #expect(logs.messages.filter { $0.contains("sdk.purchase_refused") }.count == 9_901)
        await first.shutdown()
        #expect(setting.purchaseFiles.count == 100)

        // After a restart the 100 on disk count: one more is refused until the source takes them.
        // The source's answers are held until that is checked, so no purchase can be handed
        // over first, however the machine schedules the test.
        try await setting.collector.entitlements(["ann": []])
        let heldAnswers = GatedTransport()
        let second = setting.start(source: HTTPEntitlementSource(host: setting.collector.baseURL, writeKey: setting.writeKey, transport: heldAnswers))
        _ = await second.getDebugInfo()
        if case .refused = second.recordPurchase(transactionId: "tx-late", evidence: "grant:pro") {} else { Issue.record("a 101st purchase was kept") }
        heldAnswers.release()
        #expect(await eventually { setting.purchaseFiles.isEmpty })
        #expect(second.recordPurchase(transactionId: "tx-late", evidence: "grant:pro") == .queued)
        let handed = try await setting.collector.requests().filter { $0.path == "/v1/purchases" && $0.status == 200 }
        #expect(Set(handed.compactMap { $0.headers["idempotency-key"] }).isSuperset(of: (0..<100).map { "tx-\($0)" }))
        await second.shutdown()
    }

    @Test func waitingEvidenceIsCappedByBytes() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": []], purchaseStatus: 503)
        let analytics = setting.start()
        let evidence = String(repeating: "e", count: 200 * 1024)
        let answers = (0..<30).map { analytics.recordPurchase(transactionId: "big-\($0)", evidence: evidence) }
        #expect(answers.prefix(20).allSatisfy { $0 == .queued })
        #expect(answers.dropFirst(20).allSatisfy { if case .refused(let reason) = $0 { reason.contains("bytes of evidence") } else { false } })
        if case .refused(let reason) = analytics.recordPurchase(transactionId: "huge", evidence: String(repeating: "e", count: 300 * 1024)) {
            #expect(reason.contains("over the 262144"))
        } else {
            Issue.record("300 KiB of evidence was kept")
        }
        await analytics.shutdown()
        #expect(setting.purchaseFiles.count == 20)
    }

    @Test func forgetWipesTheSetAndTheStoredFiles() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        try await setting.collector.entitlements(["ann": ["pro"]], purchaseStatus: 503)
        let first = setting.start()
        first.identify("ann")
        #expect(try await first.refreshEntitlements() == ["pro"])
        first.recordPurchase(transactionId: "tx-9", evidence: "grant:more")
        _ = await first.forget()
        #expect(first.entitlements() == nil)
        #expect(setting.purchaseFiles.isEmpty)
        await first.shutdown()
        try await setting.collector.entitlements([:], status: 503)
        let second = setting.start()
        second.identify("ann")
        await #expect(throws: EntitlementError.self) { try await second.refreshEntitlements() }
        #expect(second.entitlements() == nil)
        await second.shutdown()
    }

    @Test func withoutTheOptionNothingIsHeldOrAsked() async throws {
        let setting = try await Setting()
        defer { setting.stop() }
        var options = InitOptions(writeKey: setting.writeKey, ingestionHost: setting.collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = setting.directory.url
        options.logSink = RecordingLogSink()
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("ann")
        #expect(analytics.entitlements() == nil && !analytics.isEntitled("pro"))
        await #expect(throws: EntitlementError.notConfigured) { try await analytics.refreshEntitlements() }
        await analytics.engine.settle()
        #expect(try await setting.collector.requests().allSatisfy { !$0.path.hasPrefix("/v1/") })
        await analytics.shutdown()
    }
}
