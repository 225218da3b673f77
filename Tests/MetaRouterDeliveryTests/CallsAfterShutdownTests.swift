import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

@testable import MetaRouterCore
@testable import MetaRouterIdentity

/// A call made on an instance after its `shutdown()` returned, while a new instance for the same
/// write key and storage has taken over its event log and identity store: the call is dropped
/// and logged (`sdk.call_dropped`), and nothing of the successor's changes — its log keeps every
/// event (none reported dropped by the old instance and delivered by the new one), its stored
/// identity stays. Each of the app's calls that is not an event, in turn.
@Suite struct CallsAfterShutdownTests {
    static let calls = [
        "reset", "forget", "setAdvertisingId", "clearAdvertisingId", "setConsent", "registerSuperProperty",
        "registerSuperPropertyOnce", "unregisterSuperProperty", "setScrubPII", "startSession", "endSession", "setTracing",
        "addBreadcrumb", "captureError", "setTrackingPlan", "add(plugin:)", "recordPurchase",
    ]

    private struct Failure: Error {}

    /// Makes the call named `name`; returns the plugin it added, if any.
    @discardableResult
    private func make(_ name: String, on analytics: MetaRouter.Analytics) async -> (any Plugin)? {
        switch name {
        case "reset": analytics.reset()
        case "forget": _ = await analytics.forget()
        case "setAdvertisingId": analytics.setAdvertisingId("6D92078A-8246-4BA4-AE5B-76104861E7DC")
        case "clearAdvertisingId": analytics.clearAdvertisingId()
        case "setConsent": analytics.setConsent(ConsentState(analytics: false, errors: false))
        case "registerSuperProperty": analytics.registerSuperProperty("plan", "pro")
        case "registerSuperPropertyOnce": analytics.registerSuperPropertyOnce("plan", "pro")
        case "unregisterSuperProperty": analytics.unregisterSuperProperty("plan")
        case "setScrubPII": analytics.setScrubPII(true)
        case "startSession": analytics.startSession()
        case "endSession": analytics.endSession()
        case "setTracing": analytics.setTracing(true)
        case "addBreadcrumb": analytics.addBreadcrumb(Breadcrumb(category: "ui", message: "tapped"))
        case "captureError": analytics.captureError(Failure())
        case "setTrackingPlan": analytics.setTrackingPlan(nil)
        case "add(plugin:)":
            let plugin = DurableDestination(key: "Own", format: OwnFormat(host: URL(string: "http://127.0.0.1:9")!))
            analytics.add(plugin: plugin)
            return plugin
        case "recordPurchase":
            // Refused at the call, for the caller to keep.
            if case .refused = analytics.recordPurchase(transactionId: "tx-1", evidence: "grant:pro") { return nil }
            Issue.record("a purchase on a shut-down instance was taken")
        default: Issue.record("no such call: \(name)")
        }
        return nil
    }

    @Test(arguments: calls) func aCallAfterShutdownLeavesTheSuccessorAlone(_ call: String) async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let identityFile = directory.url.appendingPathComponent("identity.json")
        let firstLogs = RecordingLogSink(), secondLogs = RecordingLogSink()
        let dropped = Locked<[DropReason]>([])
        func options(_ logs: RecordingLogSink) -> InitOptions {
            var options = InitOptions(writeKey: "after-shutdown-\(call)", ingestionHost: collector.baseURL.absoluteString, flushIntervalSeconds: 3600)
            options.storageDirectory = directory.url
            options.keyValueStore = FileKeyValueStore(file: identityFile)
            options.logSink = logs
            options.onPermanentFailure = { failure in dropped.withLock { $0.append(failure.reason) } }
            if call == "recordPurchase" { options.entitlements = EntitlementOptions() }
            return options
        }
        try await collector.script(fallback: ScriptedResponse(status: 503))
        let first = MetaRouter.Analytics.instance(for: options(firstLogs))
        for index in 0..<5 { first.track("Before", properties: ["n": index]) }
        #expect(await first.shutdown(timeout: 5), "the first instance's events are not all on disk")
        let second = MetaRouter.Analytics.instance(for: options(secondLogs))
        let anonymousId = await second.getAnonymousId()

        weak let added = await make(call, on: first)
        await first.engine.settle()
        #expect(added == nil, "a plugin not added is still kept")

        // A purchase is refused at the call instead, for the caller to keep.
        if call != "recordPurchase" {
            #expect(firstLogs.messages.contains { $0.contains("sdk.call_dropped") && $0.contains("\(call) call") }, "\(firstLogs.messages.suffix(3))")
        }
        #expect(FileKeyValueStore(file: identityFile).string(forKey: IdentityKeys.anonymousId) == anonymousId)
        try await collector.script()
        second.track("After", properties: ["n": 100])
        let delivered = await eventually {
            await second.flushAndWait()
            return await second.getDebugInfo().queueLength == 0
        }
        await second.shutdown()
        #expect(delivered)
        #expect(dropped.current.isEmpty, "\(dropped.current)")
        let numbers = try await collector.acceptedEvents().compactMap(\.number)
        #expect(numbers == [0, 1, 2, 3, 4, 100], "\(numbers)")
    }

    /// A `shared` caller that read the engine keeping its calls before `initialize` bound it,
    /// and calls only after the bound instance shut down: the call is forwarded to that
    /// instance and dropped there, logged to its sink, and the successor's identity stays.
    @Test func aCallForwardedFromSharedAfterTheShutdownIsDroppedToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let identityFile = directory.url.appendingPathComponent("identity.json")
        let firstLogs = RecordingLogSink()
        func options(_ logs: RecordingLogSink) -> InitOptions {
            var options = InitOptions(writeKey: "forwarded-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600)
            options.storageDirectory = directory.url
            options.keyValueStore = FileKeyValueStore(file: identityFile)
            options.logSink = logs
            return options
        }
        let shared = MetaRouter.Analytics.unboundShared()
        shared.track("Kept")
        let keeping = shared.engine
        var firstOptions = options(firstLogs)
        firstOptions.writeKey = "forwarded-key"
        let first = MetaRouter.Analytics.instance(for: firstOptions)
        #expect(shared.bind(first))
        await first.shutdown(timeout: 5)
        var secondOptions = options(RecordingLogSink())
        secondOptions.writeKey = "forwarded-key"
        let second = MetaRouter.Analytics.instance(for: secondOptions)
        let anonymousId = await second.getAnonymousId()

        keeping.reset()
        keeping.track("Late")
        await first.engine.settle()

        // Counted by the instance, and its first drop logged to its sink (the rest at debug).
        #expect(first.engine.droppedCalls == 2)
        #expect(firstLogs.messages.contains { $0.contains("sdk.call_dropped") }, "\(firstLogs.messages.suffix(4))")
        #expect(FileKeyValueStore(file: identityFile).string(forKey: IdentityKeys.anonymousId) == anonymousId)
        await second.shutdown(timeout: 5)
    }
}
