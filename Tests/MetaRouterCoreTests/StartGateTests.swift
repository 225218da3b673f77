import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// A gate the test opens by hand, as iOS would at the first unlock.
private final class ManualGate: StartGate, @unchecked Sendable {  // `waiting` is only touched under `lock`
    private let lock = NSLock()
    private var waiting: [@Sendable () -> Void] = []

    func whenOpen(_ body: @escaping @Sendable () -> Void) {
        lock.withLock { waiting.append(body) }
    }

    func open() {
        let bodies = lock.withLock { () -> [@Sendable () -> Void] in
            defer { waiting = [] }
            return waiting
        }
        for body in bodies { body() }
    }
}

/// Notes whether it was configured (it reads the store in `configure`, as identity does).
private final class StoreReadingPlugin: Plugin, @unchecked Sendable {  // `configured` is written on the executor, read after settle
    let type = PluginType.enrichment
    let configured = Locked(false)
    func configure(analytics: AnalyticsClient) {
        _ = analytics.configuration.storage.string(forKey: "anonymousId")
        analytics.configuration.storage.set("minted", forKey: "anonymousId")
        configured.withLock { $0 = true }
    }
}

@Suite struct StartGateTests {
    @Test func nothingIsConfiguredOrPersistedUntilProtectedDataIsAvailable() async {
        let gate = ManualGate()
        let store = InMemoryKeyValueStore()
        let capture = CapturingDestination()
        let reader = StoreReadingPlugin()
        var configuration = Configuration(writeKey: "prewarm", logger: AnalyticsLogger(sink: SilentSink()), storage: store)
        configuration.startGate = gate
        let client = AnalyticsClient(configuration: configuration, plugins: [reader, capture])
        for index in 0..<50 { client.track("locked-\(index)") }
        // Held: nothing has run, so nothing can run until the gate opens.
        #expect(client.lifecycle == .initializing)
        #expect(!reader.configured.current)
        #expect(store.snapshot.isEmpty)
        #expect(capture.events.isEmpty)
        gate.open()
        client.track("unlocked")
        await client.settle()
        #expect(reader.configured.current)
        #expect(store.snapshot == ["anonymousId": "minted"])
        #expect(capture.events.compactMap(\.event) == (0..<50).map { "locked-\($0)" } + ["unlocked"])
        #expect(client.lifecycle == .ready)
    }

    @Test func aGateThatIsOpenAlreadyCostsNothing() async {
        let capture = CapturingDestination()
        var configuration = Configuration(writeKey: "unlocked", logger: AnalyticsLogger(sink: SilentSink()))
        configuration.startGate = OpenGate()
        let client = AnalyticsClient(configuration: configuration, plugins: [capture])
        client.track("a")
        await client.settle()
        #expect(capture.events.compactMap(\.event) == ["a"])
    }
}

private final class OpenGate: StartGate {
    func whenOpen(_ body: @escaping @Sendable () -> Void) { body() }
}
