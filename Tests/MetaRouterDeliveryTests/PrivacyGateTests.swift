import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Every path that leaves the process or reaches the disk passes the same consent gate and the
/// same scrubber as events: signals and their webhook, stored super properties, breadcrumbs and
/// the crash record's copy of them. Each test greps what arrived and the storage directory.
@Suite struct PrivacyGateTests {
    private static let secrets = [
        "ann.lee@example.com", "4111-1111-1111-1111", "eyJhbGciOiJIUzI1NiJ9.payload", "s3cr3t-t0ken-value",
    ]
    private static let sensitiveText =
        "mail ann.lee@example.com card 4111-1111-1111-1111 auth Bearer eyJhbGciOiJIUzI1NiJ9.payload"
    private static let sensitiveURL = "https://api.example.com/v1/cart?id=7&token=s3cr3t-t0ken-value&page=2"

    private func options(_ directory: URL, host: URL, configure: (inout InitOptions) -> Void = { _ in }) -> InitOptions {
        var options = InitOptions(writeKey: "privacy-\(UUID())", ingestionHost: host.absoluteString, flushIntervalSeconds: 3600)
        options.storageDirectory = directory
        options.keyValueStore = FileKeyValueStore(file: directory.appendingPathComponent("identity.json"))
        options.logSink = RecordingLogSink()
        options.scrubPII = true
        configure(&options)
        return options
    }

    /// Every file under `directory`, read whole.
    private func storedBytes(_ directory: URL) -> [Data] {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        return files.compactMap { try? Data(contentsOf: $0) }
    }

    private func leaks(in data: [Data], of texts: [String]) -> [String] {
        texts.filter { text in data.contains { $0.range(of: Data(text.utf8)) != nil } }
    }

    @Test func signalsAreScrubbedAndStopWithConsent() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let hook = try await Collector.start()
        defer { hook.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let webhook = WebhookSignalBroadcaster(url: hook.baseURL.appendingPathComponent("signals"))
        var configuration = SignalsConfiguration(broadcasters: [webhook])
        configuration.relayCount = 1
        let analytics = MetaRouter.Analytics.instance(for: options(directory.url, host: collector.baseURL) { $0.signals = configuration })
        analytics.emit(.userDefined(["note": .string(Self.sensitiveText), "n": 1]))
        analytics.emit(.network(.request, url: Self.sensitiveURL, statusCode: nil, data: nil))
        let relayed = try await hook.waitFor(timeout: 60) { $0.count >= 2 }
        analytics.setConsent(ConsentState(analytics: false, errors: true))
        analytics.emit(.userDefined(["note": "after withdrawal", "n": 2]))
        let dropped = await withCheckedContinuation { continuation in
            analytics.engine.perform { continuation.resume(returning: $0.find(SignalsPlugin.self)?.droppedWithoutConsent ?? -1) }
        }
        #expect(dropped == 1)
        await analytics.shutdown()
        let bodies = try await hook.requests().compactMap { $0.body.map { Data(JSONWriter.bytes($0)) } }
        #expect(relayed.count == 2)
        #expect(leaks(in: bodies, of: Self.secrets).isEmpty, "the webhook received: \(bodies.map { String(decoding: $0, as: UTF8.self) })")
        #expect(!bodies.contains { $0.range(of: Data("after withdrawal".utf8)) != nil })
        #expect(bodies.contains { $0.range(of: Data("<token>".utf8)) != nil })
        #expect(leaks(in: storedBytes(directory.url), of: Self.secrets).isEmpty)
    }

    @Test func superPropertiesAreStoredScrubbedAndNotStoredWithoutConsent() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let analytics = MetaRouter.Analytics.instance(for: options(directory.url, host: collector.baseURL))
        analytics.registerSuperProperty("contact", Self.sensitiveText)
        analytics.setConsent(ConsentState(analytics: false, errors: true))
        analytics.registerSuperProperty("later", "withheld while consent is withdrawn")
        analytics.setConsent(.granted)
        analytics.track("Checked")
        await analytics.flushAndWait()
        await analytics.shutdown()
        let stored = storedBytes(directory.url)
        #expect(leaks(in: stored, of: Self.secrets).isEmpty)
        // The key-value store: the scrubbed property, not the one registered without consent
        // (the event tracked once consent was back carries both, as it should).
        let keyValues = try String(contentsOf: directory.url.appendingPathComponent("identity.json"), encoding: .utf8)
        #expect(!keyValues.contains("withheld while consent"))
        #expect(keyValues.contains("<email>"), "the scrubbed super property was stored")
        let events = try await collector.acceptedEvents()
        #expect(events.first?["properties"]?["contact"]?.stringValue?.contains("<email>") == true)
        #expect(leaks(in: [Data(JSONWriter.bytes(.array(events)))], of: Self.secrets).isEmpty)
    }

    @Test func breadcrumbsAndTheCrashRecordAreScrubbedAndStopWithConsent() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let analytics = MetaRouter.Analytics.instance(for: options(directory.url, host: collector.baseURL) { $0.captureCrashes = true })
        analytics.addBreadcrumb(Breadcrumb(category: "test", message: Self.sensitiveText, data: ["url": .string(Self.sensitiveURL)]))
        analytics.setConsent(ConsentState(analytics: false, errors: true))
        analytics.addBreadcrumb(Breadcrumb(category: "test", message: "added after withdrawal"))
        analytics.captureError(URLError(.timedOut))
        await analytics.flushAndWait()
        // The crash record file is written while the instance runs (the mirror of the trail).
        let stored = storedBytes(directory.url)
        await analytics.shutdown()
        #expect(leaks(in: stored, of: Self.secrets).isEmpty)
        #expect(!stored.contains { $0.range(of: Data("added after withdrawal".utf8)) != nil })
        let reports = try await collector.acceptedEvents().filter { $0["event"] == "Error Captured" }
        try #require(reports.count == 1)
        let messages = reports[0]["properties"]?["breadcrumbs"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
        #expect(messages.count == 1 && messages[0].contains("<email>") && messages[0].contains("<token>"), "\(messages)")
    }

    @Test func namesAndIdsAreScannedOnlyWhenAsked() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let plain = MetaRouter.Analytics.instance(for: options(directory.url.appendingPathComponent("plain"), host: collector.baseURL))
        plain.track("Invited ann.lee@example.com", properties: ["link": Self.sensitiveURL])
        await plain.flushAndWait()
        await plain.shutdown()
        let scanning = MetaRouter.Analytics.instance(for: options(directory.url.appendingPathComponent("names"), host: collector.baseURL) {
            $0.piiScrubbing = PIIScrubbingOptions(scrubsNamesAndIds: true)
        })
        scanning.identify("ann.lee@example.com")
        scanning.screen("Profile of ann.lee@example.com")
        await scanning.flushAndWait()
        await scanning.shutdown()
        let events = try await collector.acceptedEvents()
        #expect(events.first?["event"] == "Invited ann.lee@example.com", "names are not scanned by default")
        #expect(events.first?["properties"]?["link"]?.stringValue?.contains("token=<token>") == true)
        #expect(events.dropFirst().allSatisfy { $0["userId"] == "<email>" })
        #expect(events.last?["name"] == "Profile of <email>")
    }
}
