import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@Suite struct FacadeTests {
    @Test func validatesOptions() {
        func errors(_ options: InitOptions) -> [String] { options.validationErrors() }
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "https://h.example.com")).isEmpty)
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "http://127.0.0.1:8080/prefix/")).isEmpty)
        #expect(errors(InitOptions(writeKey: "  ", ingestionHost: "https://h")).first?.contains("writeKey") == true)
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "ftp://h")).first?.contains("ingestionHost") == true)
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "not a url")).first?.contains("ingestionHost") == true)
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "https://h", maxQueueEvents: 0)).first?.contains("maxQueueEvents") == true)
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "https://h", maxDiskEvents: -1)).first?.contains("maxDiskEvents") == true)
        #expect(errors(InitOptions(writeKey: "k", ingestionHost: "https://h", flushIntervalSeconds: 0)).first?.contains("flushInterval") == true)
        var unbounded = InitOptions(writeKey: "k", ingestionHost: "https://h")
        unbounded.maxPendingEvents = 0
        #expect(errors(unbounded).first?.contains("maxPendingEvents") == true)
        #expect(InitOptions(writeKey: "k", ingestionHost: " https://h.example.com/p/ ").hostURL?.absoluteString == "https://h.example.com/p")
    }

    /// A disk cap that cannot hold the log is refused, not accepted and then every event
    /// dropped; with the disk log off (`maxDiskEvents = 0`) it is not used, so not checked.
    @Test(arguments: [Int.min, -1, 0, 1, 4096, 64 * 1024 - 1])
    func refusesADiskCapTooSmallForTheLog(maxDiskBytes: Int) async {
        var options = InitOptions(writeKey: "facade-disk-cap-\(UUID())", ingestionHost: "https://h.example.com")
        options.maxDiskBytes = maxDiskBytes
        #expect(options.validationErrors().first?.contains("maxDiskBytes must be at least 65536") == true)
        let logs = RecordingLogSink()
        options.logSink = logs
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.track("refused")
        let info = await analytics.getDebugInfo()
        #expect(info.lifecycle == .disabled)
        #expect(info.error?.contains("maxDiskBytes") == true)
        #expect(logs.messages(atLeast: .error).contains { $0.contains("invalid options") && $0.contains("maxDiskBytes") })
        options.maxDiskEvents = 0
        #expect(options.validationErrors().isEmpty)
        options.maxDiskEvents = 10
        options.maxDiskBytes = 64 * 1024
        #expect(options.validationErrors().isEmpty)
    }

    @Test func invalidOptionsGiveAnInertInstanceThatReportsTheError() async {
        let logs = RecordingLogSink()
        var options = InitOptions(writeKey: "", ingestionHost: "ftp://nowhere", maxQueueEvents: -5, maxDiskEvents: -1)
        options.logSink = logs
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.track("dropped")
        analytics.identify("nobody")
        analytics.flush()
        let info = await analytics.getDebugInfo()
        #expect(info.lifecycle == .disabled)
        #expect(info.error?.contains("writeKey is empty") == true)
        #expect(info.error?.contains("maxQueueEvents") == true)
        #expect(info.error?.contains("maxDiskEvents") == true)
        #expect(logs.messages(atLeast: .error).contains { $0.contains("invalid options") })
        #expect(analytics.engine.droppedCalls == 2)
        #expect(await analytics.getAnonymousId().isEmpty == false)
    }

    @Test func sameWriteKeyReturnsTheExistingInstance() async {
        let capture = CapturingDestination()
        let first = MetaRouter.Analytics.instance(for: localOptions("facade-same-\(UUID())", capture: capture))
        var again = first.options
        again.flushIntervalSeconds = 99
        let second = MetaRouter.Analytics.instance(for: again)
        #expect(first === second)
        #expect(second.options.flushIntervalSeconds == 10)
        await first.shutdown()
    }

    @Test func instancesAreIndependent() async {
        let captureA = CapturingDestination()
        let captureB = CapturingDestination()
        let a = MetaRouter.Analytics.instance(for: localOptions("facade-a-\(UUID())", capture: captureA))
        let b = MetaRouter.Analytics.instance(for: localOptions("facade-b-\(UUID())", capture: captureB))
        a.identify("alice")
        b.track("anonymous in b")
        a.track("from a")
        await a.engine.settle()
        await b.engine.settle()
        #expect(captureA.events.map(\.type) == [.identify, .track])
        #expect(captureB.events.map(\.type) == [.track])
        #expect(captureB.events.first?.userId == nil)
        #expect(captureA.events.last?.userId == "alice")
        #expect(await a.getAnonymousId() != (await b.getAnonymousId()))
        await a.shutdown()
        await b.shutdown()
    }

    @Test func debugInfoReportsTheDiskLogsLimitWhenTheLogIsOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = localOptions("facade-disk-limit-\(UUID().uuidString)", capture: CapturingDestination())
        options.defaultPlugins = .all
        options.maxDiskEvents = 500
        options.maxDiskBytes = 1_000_000
        options.storageDirectory = directory.url
        let analytics = MetaRouter.Analytics.instance(for: options)
        let info = await analytics.getDebugInfo()
        #expect(info.maxQueueEvents == 500)
        #expect(info.queueOnDisk)
        #expect(info.description.contains("maxQueueEvents: 500\nqueueOnDisk: true"))
        await analytics.shutdown()
    }

    @Test func debugInfoReportsTheSeedFields() async throws {
        let capture = CapturingDestination()
        var options = localOptions("facade-debug-wk-9876", capture: capture)
        options.defaultPlugins = .all
        options.flushIntervalSeconds = 30
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.identify("u-debug")
        analytics.group("g-debug")
        analytics.setAdvertisingId("123E4567-E89B-12D3-A456-426614174000")
        analytics.setTracing(true)
        analytics.track("queued")
        let info = await analytics.getDebugInfo()
        #expect(info.lifecycle == .ready)
        #expect(info.writeKey == "****************9876")
        #expect(info.ingestionHost == "http://127.0.0.1:9")
        #expect(info.flushIntervalSeconds == 30)
        #expect(info.maxQueueEvents == 2000)
        #expect(info.queueOnDisk == false)
        #expect(info.queueLength == 3)
        #expect(info.circuitState == .closed)
        #expect(info.circuitRemainingMs == 0)
        #expect(info.flushInFlight == false)
        #expect(info.userId == "u-debug")
        #expect(info.groupId == "g-debug")
        #expect(info.advertisingId == "123E4567-E89B-12D3-A456-426614174000")
        #expect(info.tracing)
        #expect(info.anonymousId?.count == 36)
        #expect(info.error == nil)
        #expect(info.description.contains("circuitState: closed"))
        analytics.reset()
        #expect(await analytics.getDebugInfo().userId == nil)
        await analytics.engine.shutdown()
    }

    @Test func advertisingIdSetBeforeReadyIsApplied() async {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("facade-idfa-\(UUID())", capture: capture))
        analytics.setAdvertisingId("123E4567-E89B-12D3-A456-426614174000")
        analytics.track("after")
        await analytics.engine.settle()
        #expect(capture.events.first?.context["device"]?["advertisingId"] == "123E4567-E89B-12D3-A456-426614174000")
        await analytics.shutdown()
    }

    @Test func typedPropertiesWork() async throws {
        struct Order: Encodable {
            let orderId: String
            let total: Double
        }
        let capture = CapturingDestination()
        let interface = MetaRouter.Analytics.instance(for: localOptions("facade-typed-\(UUID())", capture: capture))
        let analytics = interface
        interface.track("Order Completed", properties: Order(orderId: "o1", total: 19.99))
        interface.track("Untyped", properties: ["a": 1])
        await analytics.engine.settle()
        #expect(capture.events.map(\.event) == ["Order Completed", "Untyped"])
        #expect(capture.events.first?.properties == ["orderId": "o1", "total": 19.99])
        #expect(capture.events.last?.properties == ["a": 1])
        await analytics.shutdown()
    }

    /// `screen` and `page` take typed properties as `track` does; the SDK's own `JSON` is taken
    /// as it is (a `JSONEncoder` round trip would turn `1.0` into the integer `1`), its numbers
    /// still checked.
    @Test func typedViewsAndOwnJSONAreTakenAsGiven() async throws {
        struct Checkout: Encodable { let step: Int; let coupon: String? }
        let capture = CapturingDestination()
        let problems = Locked<[InputProblem]>([])
        let analytics = Analytics.capturing(into: capture) { options in
            options.onInvalidInput = { problem in problems.withLock { $0.append(problem) } }
        }
        analytics.screen("Checkout", properties: Checkout(step: 2, coupon: nil))
        analytics.page("Pricing", properties: Checkout(step: 1, coupon: "SPRING"))
        let own: JSON = ["ratio": .double(1.0), "big": .uint(UInt64.max), "bad": .double(.nan), "nested": ["x": .double(2.0)]]
        analytics.track("Own JSON", properties: own)
        analytics.screen("Own members", properties: ["ratio": JSON.double(3.0)] as [String: JSON])
        await analytics.performAndWait { _ in }
        let events = capture.events
        #expect(events.map(\.type) == [.screen, .page, .track, .screen])
        #expect(events[0].properties == ["step": 2, "name": "Checkout"])
        #expect(events[1].properties == ["step": 1, "coupon": "SPRING", "name": "Pricing"])
        #expect(events[2].properties == ["ratio": .double(1.0), "big": .uint(UInt64.max), "nested": ["x": .double(2.0)]])
        #expect(events[3].properties == ["ratio": .double(3.0), "name": "Own members"])
        #expect(problems.withLock { $0.map(\.keyPath) } == ["properties.bad"])
        await analytics.shutdown()
    }

    /// Typed group traits made before an instance is bound are built at the call and replayed
    /// in order (a `shared`-like object of the test's own, so `shared` is untouched).
    @Test func typedGroupTraitsAreKeptBeforeInitialize() async throws {
        struct Team: Encodable { let name: String; let seats: Int }
        let unbound = MetaRouter.Analytics.unboundShared()
        let early = Date()
        unbound.group("team-1", traits: Team(name: "Acme", seats: 3), options: nil)
        unbound.track("after", properties: nil, options: nil)
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("facade-group-\(UUID())", capture: capture))
        unbound.bind(analytics)
        await analytics.engine.settle()
        #expect(capture.events.map(\.type) == [.group, .track])
        #expect(capture.events.first?.traits == ["name": "Acme", "seats": 3])
        #expect(capture.events.first.map { $0.timestamp <= Date() && $0.timestamp >= early.addingTimeInterval(-1) } == true)
        await analytics.shutdown()
    }

    /// Input problems in calls made before binding reach the bound instance's log sink and
    /// `onInvalidInput`, as an instance's own do, in the order found (a `shared`-like object of
    /// the test's own, so `shared` is untouched).
    @Test func problemsBeforeBindingReachTheBoundInstancesReporting() async {
        let unbound = MetaRouter.Analytics.unboundShared()
        unbound.track("  ")
        unbound.identify("")
        unbound.track("Kept", properties: ["nan": Double.nan, "kept": 1])
        let capture = CapturingDestination()
        let logs = RecordingLogSink()
        let seen = Locked<[InputProblem.Code]>([])
        var options = localOptions("facade-problems-\(UUID())", capture: capture, logs: logs)
        options.onInvalidInput = { problem in seen.withLock { $0.append(problem.code) } }
        let analytics = MetaRouter.Analytics.instance(for: options)
        #expect(unbound.bind(analytics))
        await analytics.engine.settle()
        #expect(seen.current == [.missingEventName, .emptyIdentifier, .propertyNotFinite])
        #expect(logs.messages.filter { $0.contains("sdk.invalid_input") }.count == 3)
        #expect(await analytics.getDebugInfo().invalidInput["missing_event_name"] == 1)
        #expect(capture.events.map(\.event) == ["Kept"])
        await analytics.shutdown()
    }

    /// Problems beyond the ones kept before binding (1,000) are counted by the bound instance,
    /// with one line in its log saying how many went elsewhere; the kept ones reach its
    /// callback as before.
    @Test func problemsBeyondTheKeptOnesAreCountedWithOneLine() async {
        let unbound = MetaRouter.Analytics.unboundShared()
        for _ in 0..<1_003 { unbound.track("  ") }
        unbound.identify("")
        let logs = RecordingLogSink()
        let seen = Locked(0)
        var options = localOptions("facade-problems-beyond-\(UUID())", capture: CapturingDestination(), logs: logs)
        options.onInvalidInput = { _ in seen.withLock { $0 += 1 } }
        let analytics = MetaRouter.Analytics.instance(for: options)
        #expect(unbound.bind(analytics))
        await analytics.engine.settle()
        #expect(seen.current == 1_000)
        let summaries = logs.messages.filter { $0.contains("4 more problems were found in calls made before this instance was bound") }
        #expect(summaries.count == 1)
        #expect(summaries.first?.contains("empty_identifier 1, missing_event_name 3") == true)
        let counted = await analytics.getDebugInfo().invalidInput
        #expect(counted["missing_event_name"] == 1_003)
        #expect(counted["empty_identifier"] == 1)
        await analytics.shutdown()
    }

    /// What `shared` keeps before `initialize` is bounded: past `maxKeptCalls` a call is dropped
    /// at the call and counted (a `shared`-like object of the test's own, so `shared` is untouched).
    @Test func callsKeptBeforeInitializeAreBounded() async {
        let unbound = MetaRouter.Analytics.unboundShared()
        let limit = Defaults.maxPendingEvents
        for index in 0..<(limit + 10) { unbound.track("early", properties: ["i": index], options: nil) }
        #expect(await unbound.getDebugInfo().queueLength == limit)
        #expect(unbound.droppedBeforeInitialize == 10)
    }

    /// Binding with nothing kept makes the instance the target at once, and a caller that was
    /// waiting with no call kept is still answered; it binds once (a unbound of the test's
    /// own, so `shared` is untouched).
    @Test func bindingAnswersWaitingCallersAndBindsOnce() async throws {
        let waitingShared = MetaRouter.Analytics.unboundShared()
        let anonymousTask = Task { await waitingShared.getAnonymousId() }
        while waitingShared.waitingCallers == 0 { await Task.yield() }
        let first = MetaRouter.Analytics.instance(for: localOptions("facade-bind-\(UUID())", capture: CapturingDestination()))
        #expect(waitingShared.bind(first))
        // Answered by `bind` itself; checked before waiting, so a caller left behind fails
        // the test instead of hanging it.
        try #require(waitingShared.waitingCallers == 0)
        #expect(await anonymousTask.value == (await first.getAnonymousId()))

        let idleShared = MetaRouter.Analytics.unboundShared()
        let capture = CapturingDestination()
        let second = MetaRouter.Analytics.instance(for: localOptions("facade-bind-\(UUID())", capture: capture))
        #expect(idleShared.bind(second))
        #expect(idleShared.boundEngine === second.engine)
        #expect(!idleShared.bind(first))
        #expect(idleShared.boundEngine === second.engine)
        idleShared.track("after bind", properties: nil, options: nil)
        await second.engine.settle()
        #expect(capture.events.map(\.event) == ["after bind"])
        await first.shutdown()
        await second.shutdown()
    }

    /// The one test that binds `MetaRouter.Analytics.shared`: calls made before initialize are
    /// kept in order (with their own timestamps) and replayed ahead of later calls.
    @Test func sharedIsSafeBeforeInitialize() async throws {
        let shared = MetaRouter.Analytics.shared
        #expect(await shared.getDebugInfo().lifecycle == nil)
        let early = Date()
        for index in 0..<3_000 { shared.track("early", properties: ["i": index]) }
        shared.identify("early-user")
        shared.setAdvertisingId("123E4567-E89B-12D3-A456-426614174000")
        let anonymousTask = Task { await shared.getAnonymousId() }
        // The caller is waiting for an instance before there is one.
        // Kept behind the advertising id: two calls other than events.
        while shared.waitingCallers < 2 { await Task.yield() }
        let capture = CapturingDestination()
        let analytics = await MetaRouter.Analytics.initializeAndWait(with: localOptions("facade-shared-\(UUID())", capture: capture))
        shared.track("late")
        let anonymousId = await anonymousTask.value
        await analytics.engine.settle()
        let events = capture.events
        try #require(events.count == 3_002)
        #expect(events.prefix(3_000).compactMap { $0.properties?["i"]?.int64Value } == Array(0..<3_000).map(Int64.init))
        #expect(events[3_000].type == .identify)
        #expect(events[3_001].event == "late")
        #expect(events[3_001].userId == "early-user")
        #expect(events[3_001].context["device"]?["advertisingId"] != nil)
        #expect(events[0].timestamp <= Date() && events[0].timestamp >= early.addingTimeInterval(-1))
        #expect(anonymousId == events[0].anonymousId)
        await MetaRouter.Analytics.resetAndWait()
        #expect(await shared.getAnonymousId() != anonymousId)
        // Only this test's instance: other tests in the same parallel run own theirs.
        await analytics.shutdown()
    }
}
