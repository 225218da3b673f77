import Foundation
import MetaRouterContext
import MetaRouterCore
import MetaRouterTesting
import Testing

/// What the Apple glue of the context plugin drives, run on Linux: the platform names on the
/// wire, the retried screen read, and the screen joining the context.
@Suite struct PlatformNeutralContextTests {
    @Test func everyPlatformHasItsWireNames() {
        let rows = RuntimePlatform.allCases.map { ($0, $0.osName, $0.deviceType, $0.userAgentName) }
        #expect(rows.map(\.1) == ["Linux", "iOS", "macOS", "tvOS", "watchOS", "visionOS", "macOS", "unknown"])
        #expect(rows.map(\.2) == ["server", "ios", "macos", "tv", "watchos", "visionos", "macos", "unknown"])
        #expect(rows.map(\.3) == ["Linux", "iOS", "iOS", "tvOS", "watchOS", "visionOS", "macOS", "unknown"])
        #if os(Linux)
        #expect(RuntimePlatform.current == .linux)
        #endif
    }

    @Test func aScreenReadIsRetriedUntilAWindowSceneConnects() async {
        let reads = Locked(0)
        let answers = Locked<[ScreenSize]>([])
        let size = ScreenSize(width: 390, height: 844, scale: 3)
        await ScreenReading.poll(
            attempts: 20, intervalNanoseconds: 1_000_000,
            read: { reads.withLock { $0 += 1; return $0 < 3 ? nil : size } },
            completion: { screen in answers.withLock { $0.append(screen) } }
        ).value
        #expect(reads.current == 3)
        #expect(answers.current == [size])
        #expect(size.json == ["width": 390.0, "height": 844.0, "density": 3.0])
    }

    @Test func aScreenThatNeverConnectsIsGivenUpAfterTheLastAttempt() async {
        let reads = Locked(0)
        let answered = Locked(false)
        await ScreenReading.poll(
            attempts: 4, intervalNanoseconds: 1_000_000, read: { reads.withLock { $0 += 1 }; return nil },
            completion: { _ in answered.withLock { $0 = true } }
        ).value
        #expect(reads.current == 4)
        #expect(!answered.current)
    }

    @Test func theScreenJoinsTheContextOnceRead() async throws {
        let capture = CapturingDestination()
        let plugin = ContextPlugin(extra: ["deployment": "blue"], screenReader: { ScreenSize(width: 1440, height: 900, scale: 2) })
        let client = AnalyticsClient(
            configuration: Configuration(writeKey: "screen", logger: AnalyticsLogger(sink: RecordingLogSink()), storage: InMemoryKeyValueStore()),
            plugins: [plugin, capture])
        await client.settle()
        await plugin.screenRead?.value
        client.track("after the read")
        await client.settle()
        let context = try #require(capture.events.first?.context)
        #expect(context["screen"] == ["width": 1440.0, "height": 900.0, "density": 2.0])
        #expect(context["deployment"] == "blue")
    }

    /// A per-call context merged before the screen was read is merged anew after it: the plugin's
    /// last merge does not outlive the context it was made from.
    @Test func aRepeatedPerCallContextGetsTheScreenOnceRead() async throws {
        let capture = CapturingDestination()
        let screenReady = Locked(false)
        let plugin = ContextPlugin(screenReader: { screenReady.withLock { $0 } ? ScreenSize(width: 1440, height: 900, scale: 2) : nil })
        let client = AnalyticsClient(
            configuration: Configuration(writeKey: "screen-merge", logger: AnalyticsLogger(sink: RecordingLogSink()), storage: InMemoryKeyValueStore()),
            plugins: [plugin, capture])
        let perCall: [String: JSON] = ["ip": "203.0.113.7"]
        client.track("before the read", options: EventOptions(context: perCall))
        await client.settle()
        screenReady.withLock { $0 = true }
        await plugin.screenRead?.value
        client.track("after the read", options: EventOptions(context: perCall))
        await client.settle()
        #expect(capture.events.map(\.context["screen"]) == [nil, ["width": 1440.0, "height": 900.0, "density": 2.0]])
        #expect(capture.events.allSatisfy { $0.context["ip"] == "203.0.113.7" })
    }
}
