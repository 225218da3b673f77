import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// What `sdk.instance_exists` names when an instance is asked for again with other options:
/// every option a user can set, each alone and in random sets, and nothing for equal options.
@Suite struct OptionDifferencesTests {
    /// A transport that answers nothing; only its presence is compared.
    private struct SilentTransport: HTTPTransport {
        func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {}
    }

    /// A change to an option.
    private typealias Change = @Sendable (inout InitOptions) throws -> Void

    /// A change to each option, by the name the line gives it.
    private static let changes: [(String, Change)] = {
        var list: [(String, Change)] = [
            ("ingestionHost", { $0.ingestionHost = "https://other.invalid" }),
            ("debug", { $0.debug.toggle() }),
            ("flushIntervalSeconds", { $0.flushIntervalSeconds += 1 }),
            ("maxQueueEvents", { $0.maxQueueEvents += 1 }),
            ("maxDiskEvents", { $0.maxDiskEvents += 1 }),
            ("trackLifecycleEvents", { $0.trackLifecycleEvents.toggle() }),
            ("application", { $0.application.version = "9.9" }),
            ("storageDirectory", { $0.storageDirectory = URL(fileURLWithPath: "/tmp/other-directory") }),
            ("keyValueStore", { $0.keyValueStore = InMemoryKeyValueStore() }),
            ("logSink", { $0.logSink = RecordingLogSink() }),
            ("transport", { $0.transport = SilentTransport() }),
            ("defaultPlugins", { $0.defaultPlugins.remove(.sessions) }),
            ("plugins", { $0.plugins = { [] } }),
            ("onInvalidInput", { $0.onInvalidInput = { _ in } }),
            ("onPermanentFailure", { $0.onPermanentFailure = { _ in } }),
            ("clock", { $0.clock = ManualClock() }),
            ("lifecycleSource", { $0.lifecycleSource = ManualLifecycleSource() }),
            ("terminateOnSignals", { $0.terminateOnSignals = [15] }),
            ("maxDiskBytes", { $0.maxDiskBytes += 1 }),
            ("maxDiskAgeSeconds", { $0.maxDiskAgeSeconds += 1 }),
            ("sessions", { $0.sessions.inactivityTimeout += 1 }),
            ("gzipRequests", { $0.gzipRequests.toggle() }),
            ("maxPendingEvents", { $0.maxPendingEvents += 1 }),
            ("requestTimeoutSeconds", { $0.requestTimeoutSeconds += 1 }),
            ("flushAt", { $0.flushAt += 1 }),
            ("maxBatchSize", { $0.maxBatchSize += 1 }),
            ("identityMode", { $0.identityMode = $0.identityMode == .device ? .perCall : .device }),
            ("allowInsecureHTTP", { $0.allowInsecureHTTP.toggle() }),
        ]
        #if Privacy
        let privacy: [(String, Change)] = [
            ("initialConsent", { $0.initialConsent = ConsentState(analytics: false, errors: true) }),
            ("scrubPII", { $0.scrubPII.toggle() }),
            ("piiScrubbing", { $0.piiScrubbing.redactedKeys.insert("other") }),
        ]
        list += privacy
        #endif
        #if TrackingPlan
        let plan: [(String, Change)] = [
            ("trackingPlan", { $0.trackingPlan = try TrackingPlan(json: #"{ "events": {} }"#) }),
            ("trackingPlanMode", { $0.trackingPlanMode = $0.trackingPlanMode == .report ? .strip : .report }),
            ("onPlanViolation", { $0.onPlanViolation = { _ in } }),
        ]
        list += plan
        #endif
        #if ErrorCapture
        let errors: [(String, Change)] = [
            ("breadcrumbCapacity", { $0.breadcrumbCapacity += 1 }),
            ("errorCapture", { $0.errorCapture.maxEventsPerMinute += 1 }),
        ]
        list += errors
        #endif
        #if Rules
        list.append(("remoteRules", { $0.remoteRules = RemoteRulesOptions(url: URL(string: "https://rules.invalid/r.json")!) }))
        #endif
        #if Signals
        list.append(("signals", { $0.signals = SignalsConfiguration() }))
        #endif
        #if Entitlements
        list.append(("entitlements", { $0.entitlements = EntitlementOptions() }))
        #endif
        #if CrashCapture
        list.append(("captureCrashes", { $0.captureCrashes.toggle() }))
        #endif
        return list
    }()

    private static func base() -> InitOptions { InitOptions(writeKey: "differences", ingestionHost: "https://api.invalid") }

    /// Every stored option but the write key has a change here: an option added to `InitOptions`
    /// without a comparison fails this test.
    @Test func everyOptionIsCompared() {
        let stored = Mirror(reflecting: Self.base()).children.compactMap(\.label).filter { $0 != "writeKey" }
        #expect(Set(stored) == Set(Self.changes.map(\.0)))
    }

    /// Each change alone is named, whichever side made it; equal options name nothing, even when
    /// each side made its own closures and services.
    @Test func eachChangeAloneIsNamed() throws {
        #expect(Self.base().optionsDiffering(from: Self.base()).isEmpty)
        for (name, change) in Self.changes {
            var changed = Self.base()
            try change(&changed)
            #expect(changed.optionsDiffering(from: Self.base()) == [name])
            #expect(Self.base().optionsDiffering(from: changed) == [name])
            var again = Self.base()
            try change(&again)
            #expect(changed.optionsDiffering(from: again).filter { $0 != "lifecycleSource" }.isEmpty, "\(name)")
        }
    }

    /// Spellings of one host or one directory a server may make per request name nothing: white
    /// space and a trailing slash around the host, a directory URL made before and after the
    /// directory exists, with `isDirectory`, a doubled slash or a `..` in its path.
    @Test func spellingsOfTheSameHostOrDirectoryNameNothing() throws {
        var host = Self.base()
        for text in ["https://api.invalid/", " https://api.invalid ", "https://api.invalid/ \n"] {
            host.ingestionHost = text
            #expect(host.optionsDiffering(from: Self.base()).isEmpty, "\(text)")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.path + "/tenant"
        var before = Self.base()
        before.storageDirectory = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for made in [
            URL(fileURLWithPath: path), URL(fileURLWithPath: path, isDirectory: true), URL(fileURLWithPath: path + "/"),
            URL(fileURLWithPath: directory.url.path + "//tenant"), URL(fileURLWithPath: path + "/../tenant"),
            directory.url.appendingPathComponent("tenant"),
        ] {
            var after = Self.base()
            after.storageDirectory = made
            #expect(after.optionsDiffering(from: before).isEmpty, "\(made)")
        }
        var other = Self.base()
        other.storageDirectory = URL(fileURLWithPath: directory.url.path + "/another")
        #expect(other.optionsDiffering(from: before) == ["storageDirectory"])
    }

    /// Random sets of changes are named exactly, in the order `InitOptions` declares them.
    @Test func randomSetsOfChangesAreNamedExactly() throws {
        var random = SeededRandom(seed: 0x6f70_7473)
        let order = Mirror(reflecting: Self.base()).children.compactMap(\.label)
        for _ in 0..<500 {
            var changed = Self.base()
            var chosen: Set<String> = []
            for (name, change) in Self.changes where random.next(4) == 0 {
                try change(&changed)
                chosen.insert(name)
            }
            let named = changed.optionsDiffering(from: Self.base())
            #expect(Set(named) == chosen)
            #expect(named == named.sorted { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! })
        }
    }
}
