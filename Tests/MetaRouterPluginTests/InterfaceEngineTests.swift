import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// What a server or an app reaches through the `Analytics` class alone, as `instance(for:)`
/// returns it: the plugin host, a bounded shutdown, a waited reset, typed signals.
@Suite struct InterfaceEngineTests {
    private func options(_ directory: URL, writeKey: String) -> InitOptions {
        var options = InitOptions(writeKey: writeKey, ingestionHost: "http://127.0.0.1:9")
        options.storageDirectory = directory
        options.defaultPlugins = [.identity, .context]
        options.logSink = RecordingLogSink()
        return options
    }

    @Test func theClassHostsPluginsAndStopsWithinItsDeadline() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let analytics = MetaRouter.Analytics.instance(for: options(directory.url, writeKey: "engine-\(UUID())"))
        let capture = CapturingDestination()
        analytics.add(plugin: capture)
        analytics.track("Checkout Started", properties: ["cart_size": 3])
        analytics.identify("user-1")
        await analytics.resetAndWait()
        analytics.track("After Reset")
        await analytics.performAndWait { _ in }
        #expect(capture.events.compactMap { $0.event ?? $0.type.rawValue } == ["Checkout Started", "identify", "After Reset"])
        #expect(capture.events.last?.userId == nil, "the reset was applied before the next call")
        #expect(await analytics.shutdown(timeout: 5))
    }

    @Test func typedSignalsGoThroughTheInterface() async throws {
        struct Cart: Encodable { var items: Int }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var settings = options(directory.url, writeKey: "signals-\(UUID())")
        settings.signals = SignalsConfiguration(generators: [SignalGenerator(name: "carts") { signal, _ in
            guard signal.type == .userDefined, let items = signal.data["items"] else { return [] }
            return [Event(type: .track, event: "Cart Seen", properties: ["items": items])]
        }])
        let analytics = MetaRouter.Analytics.instance(for: settings)
        let capture = CapturingDestination()
        analytics.add(plugin: capture)
        analytics.emit(userDefined: Cart(items: 2))
        await analytics.performAndWait { _ in }
        await analytics.performAndWait { _ in }   // a generated event enters the pipeline as a call of its own
        #expect(capture.events.map(\.properties) == [["items": 2]])
        await analytics.shutdown()
    }
}
