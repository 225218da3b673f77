import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Every row of the seed's delivery table, over real HTTP to the collector fixture.
@Suite struct StatusTableTests {
    @Test func deliversABatchWithTheWireFormatAndHeaders() async throws {
        let harness = try await DeliveryHarness(hostSuffix: "/prefix/")
        defer { harness.stop() }
        harness.client.identify("user-1", traits: ["plan": "pro"])
        harness.client.track("Order Completed", properties: ["total": 19.99, "big": 9_007_199_254_740_993])
        harness.client.screen("Home", properties: ["from": "push"])
        harness.client.group("acme")
        harness.client.alias("user-2")
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.path == "/prefix/v1/batch")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["user-agent"]?.hasPrefix("metarouter-swift/") == true)
        #expect(UUID(uuidString: request.headers["idempotency-key"] ?? "") != nil)
        #expect(request.headers["trace"] == nil)
        #expect(request.body?.objectValue?.keys.sorted() == ["batch"])
        let events = request.events
        #expect(events.map { $0["type"]?.stringValue } == ["identify", "track", "screen", "group", "alias"])
        for event in events {
            #expect(event["writeKey"] == "wk-delivery-1234")
            #expect(event["sentAt"]?.stringValue.flatMap(Timestamp.date(from:)) != nil)
            #expect(event["timestamp"]?.stringValue?.count == 24)
            #expect(event["anonymousId"]?.stringValue?.count == 36)
        }
        #expect(events[1]["properties"]?["total"] == .double(19.99))
        #expect(events[1]["properties"]?["big"] == .int(9_007_199_254_740_993))
        #expect(events[1]["userId"] == "user-1")
        #expect(events[2]["name"] == "Home")
        #expect(events[2]["properties"]?["name"] == "Home")
        #expect(events[3]["groupId"] == "acme")
        #expect(events[4]["userId"] == "user-2")
        #expect(events[4]["previousId"] == "user-1")
        #expect(harness.stats.sent == 5)
    }

    @Test func traceHeaderFollowsSetTracing() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        harness.client.perform { $0.find(DurableDestination.self)?.uploader?.tracing = true }
        harness.track(1)
        await harness.client.flushAndWait()
        harness.client.perform { $0.find(DurableDestination.self)?.uploader?.tracing = false }
        harness.track(1, from: 1)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.map { $0.headers["trace"] } == ["true", nil])
    }

    @Test(arguments: [500, 502, 503, 408])
    func retryableStatusRequeuesAndRetriesWithTheSameKey(status: Int) async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: status)])
        harness.track(3)
        await harness.client.flushAndWait()
        var state = await harness.status()
        #expect(state.queueLength == 3)
        #expect(state.circuitState == .closed)
        // A flush during the retry delay sends nothing: no tight loop.
        await harness.client.flushAndWait()
        #expect(try await harness.collector.requests().count == 1)
        await harness.advance(by: 1)
        let requests = try await harness.collector.requests()
        #expect(requests.map(\.status) == [status, 200])
        #expect(requests[0].headers["idempotency-key"] == requests[1].headers["idempotency-key"])
        #expect(requests[1].events.compactMap(\.number) == [0, 1, 2])
        state = await harness.status()
        #expect(state.queueLength == 0)
        #expect(harness.stats.retries == 1)
    }

    @Test func networkErrorIsRetried() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(drop: true)])
        harness.track(2)
        await harness.client.flushAndWait()
        #expect(await harness.status().queueLength == 2)
        await harness.advance(by: 1)
        let accepted = try await harness.collector.acceptedEvents()
        #expect(accepted.compactMap(\.number) == [0, 1])
    }

    @Test func retryDelayDoublesBeforeTheBreakerOpens() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 500), ScriptedResponse(status: 500)])
        harness.track(1)
        await harness.client.flushAndWait()
        #expect(harness.clock.pendingDelays.contains(1))
        await harness.advance(by: 1)
        #expect(try await harness.collector.requests().count == 2)
        #expect(harness.clock.pendingDelays.contains(2))
        await harness.advance(by: 1.5)
        #expect(try await harness.collector.requests().count == 2)
        await harness.advance(by: 0.5)
        #expect(try await harness.collector.requests().map(\.status) == [500, 500, 200])
    }

    @Test func throttledWaitsForRetryAfterSeconds() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 429, headers: ["Retry-After": "30"])])
        harness.track(1)
        await harness.client.flushAndWait()
        await harness.advance(by: 29)
        #expect(try await harness.collector.requests().count == 1)
        await harness.advance(by: 1)
        #expect(try await harness.collector.requests().map(\.status) == [429, 200])
    }

    @Test func throttledWaitsAtLeastOneSecondAndParsesHTTPDates() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ResponseClassifier.retryAfter("Fri, 15 Jan 2027 08:00:20 GMT", now: now).map { $0.rounded() } == 20)
        #expect(ResponseClassifier.retryAfter("soon", now: now) == nil)
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 429, headers: ["Retry-After": "0"])])
        harness.track(1)
        await harness.client.flushAndWait()
        await harness.advance(by: 0.5)
        #expect(try await harness.collector.requests().count == 1)
        await harness.advance(by: 0.5)
        #expect(try await harness.collector.requests().count == 2)
    }

    @Test func payloadTooLargeHalvesWaitsAndNeverGrowsBackToARefusedSize() async throws {
        let harness = try await DeliveryHarness { $0.upload.maxBatchSize = 8 }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 413), ScriptedResponse(status: 413)])
        harness.track(16)
        await harness.client.flushAndWait()
        #expect(try await harness.collector.requests().map(\.events.count) == [8])
        // A 413 is never re-sent at once: the retry floor (1 s) applies.
        await harness.advance(by: 0.5)
        #expect(try await harness.collector.requests().count == 1)
        await harness.advance(by: 0.5)
        await harness.client.flushAndWait()
        await harness.advance(by: 1)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        // Refused at 8 and at 4: after 2 succeeds it grows back, but only up to 3.
        #expect(requests.map(\.events.count) == [8, 4, 2, 3, 3, 3, 3, 2])
        let accepted = try await harness.collector.acceptedEvents()
        #expect(accepted.compactMap(\.number) == Array(0..<16))
        #expect(await harness.status().maxBatchSize == 3)
    }

    @Test func payloadTooLargeDropsOnlyASingleOversizedEvent() async throws {
        let harness = try await DeliveryHarness { $0.upload.maxBatchSize = 2 }
        defer { harness.stop() }
        try await harness.collector.script([
            ScriptedResponse(status: 413), ScriptedResponse(status: 413), ScriptedResponse(status: 200),
        ])
        harness.track(2)
        await harness.client.flushAndWait()
        await harness.advance(by: 1)
        await harness.client.flushAndWait()
        await harness.advance(by: 1)
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.map(\.events.count) == [2, 1, 1])
        #expect(try await harness.collector.acceptedEvents().compactMap(\.number) == [1])
        #expect(harness.stats.dropped[.tooLarge] == 1)
        #expect(harness.failures.current.first?.reason == .tooLarge)
    }

    @Test(arguments: [400, 422, 418])
    func rejectedBatchIsDroppedAndDeliveryContinues(status: Int) async throws {
        let harness = try await DeliveryHarness { $0.upload.maxBatchSize = 2 }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: status)])
        harness.track(4)
        await harness.client.flushAndWait()
        #expect(try await harness.collector.acceptedEvents().compactMap(\.number) == [2, 3])
        #expect(harness.stats.dropped[.rejected] == 2)
        let failure = try #require(harness.failures.current.first)
        #expect(failure.status == status)
        #expect(failure.events.count == 2)
        #expect(await harness.status().circuitState == .closed)
    }

    @Test(arguments: [401, 403, 404])
    func fatalStatusDisablesTheClient(status: Int) async throws {
        let harness = try await DeliveryHarness { $0.upload.maxBatchSize = 2 }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: status)])
        harness.track(5)
        await harness.client.flushAndWait()
        #expect(harness.client.lifecycle == .disabled)
        #expect(harness.client.disabledReason?.contains("\(status)") == true)
        #expect(await harness.status().queueLength == 0)
        #expect(harness.stats.dropped[.disabled] == 5)
        harness.track(3, from: 5)
        await harness.client.flushAndWait()
        await harness.advance(by: 3600)
        #expect(try await harness.collector.requests().count == 1)
        #expect(harness.client.droppedCalls == 3)
        #expect(harness.clock.pendingDelays.isEmpty)
    }

    @Test func resetDuringFlushDoesNotRequeueTheInFlightBatch() async throws {
        let harness = try await DeliveryHarness()
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 500, delay: 0.3)])
        harness.track(3)
        harness.client.flush()
        _ = try await harness.collector.waitFor { $0.count == 1 }
        harness.client.reset()
        harness.track(1, from: 100)
        await harness.client.settle()
        // The abandoned batch's answer (a 500 after 0.3 s) arrives and is reported as dropped.
        #expect(await eventually { harness.stats.dropped[.reset] == 3 })
        await harness.client.flushAndWait()
        await harness.advance(by: 1)
        let accepted = try await harness.collector.acceptedEvents()
        #expect(accepted.compactMap(\.number) == [100])
        #expect(harness.stats.dropped[.reset] == 3)
    }

    @Test func queueCapDropsOldestAndCountsThem() async throws {
        let harness = try await DeliveryHarness { $0.upload.maxQueueEvents = 5 }
        defer { harness.stop() }
        harness.track(8)
        await harness.client.flushAndWait()
        #expect(try await harness.collector.acceptedEvents().compactMap(\.number) == [3, 4, 5, 6, 7])
        #expect(harness.stats.dropped[.queueFull] == 3)
        // One line for the interval and one at the flush for the rest of the burst, not one per
        // evicted event (a server evicts on every call); the last says the total.
        let lines = harness.logs.messages(atLeast: .warning).filter { $0.contains("queueFull") }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.contains("dropped 1 event(s)") == true && lines.last?.contains("dropped 2 event(s)") == true, "\(lines)")
        #expect(lines.last?.contains("(3 in all)") == true, "\(lines)")
    }

    @Test func retriedBatchSurvivesAQueueThatFillsUp() async throws {
        let harness = try await DeliveryHarness {
            $0.upload.maxQueueEvents = 4
            $0.upload.maxBatchSize = 2
        }
        defer { harness.stop() }
        try await harness.collector.script([ScriptedResponse(status: 503)])
        harness.track(2)
        await harness.client.flushAndWait()
        harness.track(4, from: 2)
        await harness.advance(by: 1)
        #expect(try await harness.collector.acceptedEvents().compactMap(\.number) == [0, 1, 4, 5])
    }

    @Test func byteCapSplitsBatches() async throws {
        let harness = try await DeliveryHarness { $0.upload.maxBatchBytes = 2_000 }
        defer { harness.stop() }
        let padding = String(repeating: "x", count: 600)
        for index in 0..<6 { harness.client.track("Big", properties: ["n": index, "pad": padding]) }
        await harness.client.flushAndWait()
        let requests = try await harness.collector.requests()
        #expect(requests.count > 1)
        #expect(requests.flatMap(\.events).compactMap(\.number) == Array(0..<6))
    }
}
