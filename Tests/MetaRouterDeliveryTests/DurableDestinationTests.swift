import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// `DurableDestination` end to end: real HTTP to collector processes, real disk logs, through
/// the public `Analytics`, beside the built-in destination.
@Suite struct DurableDestinationTests {
    private func instance(
        builtIn: Collector, own: DurableDestination, directory: URL, writeKey: String = "durable-\(UUID())"
    ) -> MetaRouter.Analytics {
        instanceBesideTheBuiltIn(own, host: builtIn.baseURL, directory: directory, writeKey: writeKey)
    }

    private func fast(_ batch: Int = 100) -> DurableDestinationOptions {
        var options = DurableDestinationOptions()
        options.maxBatchEvents = batch
        options.flushIntervalSeconds = 1
        return options
    }

    /// Both destinations get every event, in order, each in its own format; a batch retried
    /// after 500s keeps its id; the figures are under the destination's key.
    @Test func deliversEverythingInOrderBesideTheBuiltIn() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await vendor.script([ScriptedResponse(status: 500), ScriptedResponse(status: 503)])
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: OwnFormat(host: vendor.baseURL), options: fast(7)), directory: directory.url)
        for index in 0..<40 { analytics.track("Step", properties: ["n": index]) }
        let done = await eventually {
            await analytics.flushAndWait()
            let info = await analytics.getDebugInfo()
            return info.stats.sent == 40 && info.destinations["Own"]?.sent == 40
        }
        let info = await analytics.getDebugInfo()
        await analytics.shutdown()
        #expect(done, "\(info)")
        #expect(try await builtIn.acceptedEvents().compactMap(\.number) == Array(0..<40))
        let requests = try await vendor.requests()
        #expect(requests.allSatisfy { $0.path == "/own/batch" })
        #expect(requests.filter { $0.status == 200 }.flatMap(\.events).compactMap(\.number) == Array(0..<40))
        let firstIds = requests.prefix(3).compactMap { $0.headers["x-batch-id"] }
        #expect(firstIds.count == 3 && Set(firstIds).count == 1, "a retried batch keeps its id: \(firstIds)")
        #expect(requests.flatMap(\.events).allSatisfy { $0["sentAt"]?.stringValue != nil && $0["messageId"]?.stringValue != nil })
        #expect(info.destinations["Own"]?.retries == 2)
    }

    /// Destinations that queue an event as it is share one encoding of it; a destination whose
    /// own plugins change the event encodes its copy, and only it sends the change.
    @Test func aDestinationsOwnPluginsChangeOnlyWhatItSends() async throws {
        final class Stamp: Plugin {
            let type = PluginType.enrichment
            func execute(event: consuming Event) -> Event? {
                event.properties?["stamped"] = true
                return event
            }
        }
        let builtIn = try await Collector.start(), vendor = try await Collector.start(), plain = try await Collector.start()
        defer { builtIn.stop(); vendor.stop(); plain.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let own = DurableDestination(key: "Own", format: OwnFormat(host: vendor.baseURL), options: fast(10))
        own.add(plugin: Stamp())
        let other = UncheckedDestination(DurableDestination(key: "Plain", format: OwnFormat(host: plain.baseURL), options: fast(10)))
        let analytics = instance(builtIn: builtIn, own: own, directory: directory.url)
        analytics.add(plugin: other.destination)
        for index in 0..<20 { analytics.track("Step", properties: ["n": index]) }
        let done = await eventually {
            await analytics.flushAndWait()
            let info = await analytics.getDebugInfo()
            return info.stats.sent == 20 && info.destinations["Own"]?.sent == 20 && info.destinations["Plain"]?.sent == 20
        }
        await analytics.shutdown()
        #expect(done)
        let stamped = try await vendor.requests().filter { $0.status == 200 }.flatMap(\.events)
        let unstamped = try await plain.requests().filter { $0.status == 200 }.flatMap(\.events)
        let accepted = try await builtIn.acceptedEvents()
        #expect(stamped.compactMap(\.number) == Array(0..<20) && unstamped.compactMap(\.number) == Array(0..<20))
        #expect(accepted.compactMap(\.number) == Array(0..<20))
        #expect(stamped.allSatisfy { $0["properties"]?["stamped"] == true })
        #expect(unstamped.allSatisfy { $0["properties"]?["stamped"] == nil } && accepted.allSatisfy { $0["properties"]?["stamped"] == nil })
        #expect(stamped.map { $0["messageId"] } == accepted.map { $0["messageId"] })
    }

    /// 413 halves the batch down to single events (a single one too large is dropped, counted);
    /// 429 waits for `Retry-After`; a 400 drops its batch with the format's reason; a batch
    /// the format cannot write is dropped and the next ones still go.
    @Test func theFormatsVerdictsDriveTheEngine() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await vendor.script([
            ScriptedResponse(status: 413), ScriptedResponse(status: 413), ScriptedResponse(status: 429, headers: ["Retry-After": "1"]),
            ScriptedResponse(status: 413), ScriptedResponse(status: 400),
        ])
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: OwnFormat(host: vendor.baseURL), options: fast(8)), directory: directory.url)
        for index in 0..<8 { analytics.track("Step", properties: ["n": index]) }
        analytics.track("Unwritable")
        for index in 8..<12 { analytics.track("Step", properties: ["n": index]) }
        let done = await eventually {
            await analytics.flushAndWait()
            let own = await analytics.getDebugInfo().destinations["Own"]
            return (own?.sent ?? 0) + (own?.droppedTotal ?? 0) == 13
        }
        let own = await analytics.getDebugInfo().destinations["Own"]
        await analytics.shutdown()
        #expect(done, "\(String(describing: own))")
        let requests = try await vendor.requests()
        #expect(requests.map(\.events.count).prefix(5) == [8, 4, 2, 2, 1], "\(requests.map(\.events.count))")
        #expect(own?.dropped[.rejected] ?? 0 >= 2, "the 400's event and the unwritable one")
        #expect(requests.filter { $0.status == 200 }.flatMap(\.events).compactMap(\.number).allSatisfy { (0..<12).contains($0) })
    }

    /// Events the destination holds while its host is down survive the instance: a new one on
    /// the same storage delivers them once, in order, under the same batch id.
    @Test func whatIsQueuedSurvivesARestart() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writeKey = "durable-restart-\(UUID())"
        try await vendor.script(fallback: ScriptedResponse(status: 503))
        let first = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: OwnFormat(host: vendor.baseURL), options: fast(5)), directory: directory.url, writeKey: writeKey)
        for index in 0..<20 { first.track("Step", properties: ["n": index]) }
        _ = await eventually { await first.getDebugInfo().destinations["Own"]?.retries ?? 0 >= 1 }
        await first.shutdown(timeout: 1)
        let failedId = try await vendor.requests().first?.headers["x-batch-id"]
        try await vendor.script()
        let second = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: OwnFormat(host: vendor.baseURL), options: fast(5)), directory: directory.url, writeKey: writeKey)
        let done = await eventually {
            await second.flushAndWait()
            return await second.getDebugInfo().destinations["Own"]?.sent == 20
        }
        await second.shutdown()
        #expect(done)
        let accepted = try await vendor.requests().filter { $0.status == 200 }
        #expect(accepted.flatMap(\.events).compactMap(\.number) == Array(0..<20))
        #expect(accepted.first?.headers["x-batch-id"] == failedId)
    }

    /// One host down for good does not hold up the other destination: the built-in one delivers
    /// every event while the other has sent nothing and keeps retrying.
    @Test func aDeadHostDoesNotDelayTheOtherDestination() async throws {
        let builtIn = try await Collector.start()
        defer { builtIn.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let dead = URL(string: "http://127.0.0.1:9")!
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: OwnFormat(host: dead), options: fast(1)), directory: directory.url)
        for index in 0..<30 { analytics.track("Step", properties: ["n": index]) }
        let delivered = await eventually { await analytics.getDebugInfo().stats.sent == 30 }
        let own = await analytics.getDebugInfo().destinations["Own"]
        await analytics.shutdown(timeout: 1)
        #expect(delivered)
        #expect(own?.sent == 0)
        #expect(own?.retries ?? 0 >= 1)
    }

    /// A format whose `request(for:)` or `verdict(for:)` does not return holds up only its own
    /// destination: while it is stuck the instance takes calls and the built-in destination
    /// delivers them (seen at its collector, not through the executor); once it returns, its
    /// destination delivers every event once, in order.
    @Test(arguments: [false, true]) func aStuckFormatHoldsUpOnlyItsOwnDestination(inVerdict: Bool) async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gate = FormatGate()
        let format = GatedFormat(inner: OwnFormat(host: vendor.baseURL), gate: gate, inVerdict: inVerdict)
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: format, options: fast(5)), directory: directory.url)
        for index in 0..<20 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        let stuck = await eventually { gate.entered.current }
        for index in 20..<30 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        let builtInDelivered = await eventually { (try? await builtIn.acceptedEvents().count) == 30 }
        gate.open()
        let ownDelivered = await eventually {
            await analytics.flushAndWait()
            return await analytics.getDebugInfo().destinations["Own"]?.sent == 30
        }
        await analytics.shutdown()
        #expect(stuck, "the format was never called")
        #expect(builtInDelivered, "the built-in destination waited for the stuck format")
        #expect(ownDelivered)
        let numbers = try await vendor.requests().filter { $0.status == 200 }.flatMap(\.events).compactMap(\.number)
        #expect(numbers == Array(0..<30), "\(numbers)")
    }

    /// A destination that needs a consent category gets only the events that grant it; the
    /// built-in one gets every event. Withdrawing the category drops what the destination holds,
    /// counted, and leaves the built-in destination's queue alone.
    @Test func consentCategoriesGateTheDestination() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = fast(1)
        options.consentCategories = ["Advertising"]
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Ads", format: OwnFormat(host: vendor.baseURL), options: options), directory: directory.url)
        analytics.track("Step", properties: ["n": 0])
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": true]))
        analytics.track("Step", properties: ["n": 1])
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": false]))
        analytics.track("Step", properties: ["n": 2])
        _ = await eventually {
            await analytics.flushAndWait()
            return await analytics.getDebugInfo().stats.sent == 3
        }
        await analytics.flushAndWait()
        await analytics.shutdown()
        #expect(try await builtIn.acceptedEvents().compactMap(\.number) == [0, 1, 2])
        #expect(try await vendor.acceptedEvents().compactMap(\.number) == [1])
    }

    /// A batch already in flight when its category is withdrawn is not sent again, and when its
    /// answer fails it is counted under `consent`, as the queued events are. (On a busy machine
    /// the batch may be waiting out a retry instead when the withdrawal lands; the counts hold
    /// either way.)
    @Test func aBatchInFlightAtAWithdrawalIsCountedUnderConsent() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await vendor.script(fallback: ScriptedResponse(status: 503, delay: 3))
        var options = fast(2)
        options.consentCategories = ["Advertising"]
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Ads", format: OwnFormat(host: vendor.baseURL), options: options), directory: directory.url)
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": true]))
        for index in 0..<2 { analytics.track("Step", properties: ["n": index]) }
        // The collector records a request before it waits out the delay: the batch is in flight.
        let inFlight = await eventually { ((try? await vendor.requests())?.count ?? 0) >= 1 }
        let before = try await vendor.requests().count
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": false]))
        let settled = await eventually { (await analytics.getDebugInfo().destinations["Ads"]?.dropped[.consent] ?? 0) == 2 }
        let ads = await analytics.getDebugInfo().destinations["Ads"]
        let after = try await vendor.requests().count
        await analytics.shutdown()
        #expect(inFlight && settled, "\(String(describing: ads))")
        #expect(ads?.dropped[.reset] == nil && ads?.sent == 0, "\(String(describing: ads))")
        #expect(after <= before + 1, "nothing is sent for the destination after the withdrawal is applied: \(before) then \(after)")
    }

    @Test func withdrawingACategoryDropsWhatTheDestinationHolds() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await vendor.script(fallback: ScriptedResponse(status: 503))
        try await builtIn.script(fallback: ScriptedResponse(status: 503))
        var options = fast(2)
        options.consentCategories = ["Advertising"]
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Ads", format: OwnFormat(host: vendor.baseURL), options: options), directory: directory.url)
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": true]))
        for index in 0..<10 { analytics.track("Step", properties: ["n": index]) }
        _ = await eventually { await analytics.getDebugInfo().destinations["Ads"]?.retries ?? 0 >= 1 }
        analytics.setConsent(ConsentState(analytics: true, errors: true, categoryPreferences: ["Advertising": false]))
        try await vendor.script()
        try await builtIn.script()
        let done = await eventually {
            await analytics.flushAndWait()
            return await analytics.getDebugInfo().stats.sent == 10
        }
        let ads = await analytics.getDebugInfo().destinations["Ads"]
        await analytics.shutdown()
        #expect(done)
        #expect(try await builtIn.acceptedEvents().compactMap(\.number) == Array(0..<10))
        let sentToAds = try await vendor.acceptedEvents().count
        #expect(sentToAds + (ads?.droppedTotal ?? 0) == 10, "\(String(describing: ads))")
        #expect((ads?.dropped[.consent] ?? 0) >= 8, "at most the batch in flight may still land")
        #expect(ads?.dropped[.reset] == nil, "a batch in flight at the withdrawal is counted under consent too")
    }

    /// Any key names one directory inside `destinations`, and two keys never share one.
    @Test func hostileKeysStayInsideTheStorageDirectory() {
        let root = URL(fileURLWithPath: "/tmp/metarouter-root", isDirectory: true)
        let keys = ["../../etc", "/", ".", "..", "a/b", "a\\b", "\u{0}", String(repeating: "x", count: 10_000), "Own", "own", "é", "e\u{301}", ""]
        var seen = Set<String>()
        for key in keys {
            let directory = DurableDestination.logDirectory(forKey: key, under: root).standardizedFileURL
            let destinations = root.appendingPathComponent("destinations").path
            #expect(directory.path.hasPrefix(destinations + "/"), "\(String(key.prefix(20))) → \(directory.path)")
            #expect(directory.deletingLastPathComponent().deletingLastPathComponent().path == destinations)
            seen.insert(directory.path)
        }
        #expect(seen.count == keys.count)
    }

    /// Settings at their extremes (`Int.max` events a batch) and a request no transport can send
    /// (a `file:` URL): the batch is dropped, counted, and the next ones go; nothing traps.
    @Test func extremeSettingsAndUnsendableRequestsDoNotWedgeTheDestination() async throws {
        let builtIn = try await Collector.start(), vendor = try await Collector.start()
        defer { builtIn.stop(); vendor.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = fast(Int.max)
        options.maxBatchBytes = Int.max
        let analytics = instance(builtIn: builtIn, own: DurableDestination(key: "Own", format: OwnFormat(host: vendor.baseURL), options: options), directory: directory.url)
        for index in 0..<5 { analytics.track("Step", properties: ["n": index]) }
        analytics.flush()
        _ = await eventually { await analytics.getDebugInfo().destinations["Own"]?.sent == 5 }
        analytics.track("To A File")
        analytics.flush()
        _ = await eventually { await analytics.getDebugInfo().destinations["Own"]?.dropped[.rejected] == 1 }
        for index in 5..<10 { analytics.track("Step", properties: ["n": index]) }
        let done = await eventually {
            await analytics.flushAndWait()
            return await analytics.getDebugInfo().destinations["Own"]?.sent == 10
        }
        let own = await analytics.getDebugInfo().destinations["Own"]
        await analytics.shutdown()
        #expect(done, "\(String(describing: own))")
        #expect(own?.dropped[.rejected] == 1)
        #expect(try await vendor.acceptedEvents().compactMap(\.number) == Array(0..<10))
    }
}
