import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

@Suite struct OrderingTests {
    /// Eight threads track concurrently while a ninth identifies and resets: every event
    /// arrives, each thread's order is kept, and identity changes split the stream cleanly.
    @Test func concurrentTrackingKeepsPerThreadOrderAndIdentityBoundaries() async {
        let capture = CapturingDestination()
        let client = makeClient([SessionStampPlugin(), capture])
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: 9) { worker in
            if worker == 8 {
                for round in 0..<50 {
                    client.identify("user-\(round)")
                    if round % 10 == 9 { client.reset() }
                }
                return
            }
            for index in 0..<perThread {
                client.track("t", properties: ["thread": worker, "index": index])
            }
        }
        await client.settle()
        let tracks = capture.events.filter { $0.type == .track }
        #expect(tracks.count == 8 * perThread)
        var lastIndex = [Int64: Int64]()
        var ordered = true
        for event in tracks {
            guard let thread = event.properties?["thread"]?.int64Value, let index = event.properties?["index"]?.int64Value else { continue }
            if let previous = lastIndex[thread], previous + 1 != index { ordered = false }
            lastIndex[thread] = index
        }
        #expect(ordered)
        #expect(capture.events.filter { $0.type == .identify }.count == 50)
        // Identity boundaries: the session stamp never goes backwards along the stream.
        let sessions = capture.events.compactMap { $0.userId?.split(separator: "-").last.flatMap { Int($0) } }
        #expect(sessions == sessions.sorted())
    }

    @Test func callsBeforeReadyAreKeptInOrder() async {
        let capture = CapturingDestination()
        let slow = SlowConfigurePlugin()
        let client = makeClient([slow, capture])
        for index in 0..<5_000 { client.track("early", properties: ["i": index]) }
        #expect(client.lifecycle == .initializing || client.lifecycle == .ready)
        await client.settle()
        let indices = capture.events.compactMap { $0.properties?["i"]?.int64Value }
        #expect(indices == Array(0..<5_000).map(Int64.init))
        #expect(client.lifecycle == .ready)
    }

    @Test func flushCoversEveryEarlierEvent() async {
        let capture = FlushCountingDestination()
        let client = makeClient([capture])
        for trial in 0..<100 {
            client.track("t\(trial)")
            client.flush()
        }
        await client.settle()
        #expect(capture.seenAtFlush == Array(1...100))
    }

    @Test func timestampIsTakenAtTheCall() async {
        let clock = ManualClock()
        let capture = CapturingDestination()
        let client = makeClient([capture], clock: clock)
        client.track("first")
        clock.advance(by: 5)
        client.track("second")
        await client.settle()
        let stamps = capture.events.map(\.timestamp)
        #expect(stamps.count == 2)
        #expect(stamps[1].timeIntervalSince(stamps[0]) == 5)
    }
}

/// Takes a while to configure, as loading identity from a slow disk would.
final class SlowConfigurePlugin: Plugin {
    let type = PluginType.before
    func configure(analytics: AnalyticsClient) { Thread.sleep(forTimeInterval: 0.05) }
}

/// Records how many events it had seen whenever flush reached it.
final class FlushCountingDestination: DestinationPlugin, @unchecked Sendable {  // read after settle()
    let key = "FlushCount"
    let timeline = Timeline()
    private var seen = 0
    private(set) var seenAtFlush: [Int] = []
    func execute(event: Event) -> Event? { seen += 1; return event }
    func flush() { seenAtFlush.append(seen) }
}

@Suite struct PromptWorkTests {
    /// Work submitted with `performPromptly` (a network answer, a timer) runs after at most a
    /// few dozen of the commands already waiting, never behind the whole backlog; ordinary
    /// `perform` work keeps its place.
    @Test func promptWorkOvertakesABacklog() async {
        let client = makeClient([])
        await client.settle()
        let gate = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        client.perform { _ in gate.wait() }
        for index in 0..<2_000 { client.perform { _ in order.withLock { $0.append("ordered-\(index)") } } }
        client.performPromptly { _ in order.withLock { $0.append("prompt") } }
        client.perform { _ in order.withLock { $0.append("last") } }
        gate.signal()
        await client.settle()
        let seen = order.current
        #expect(seen.count == 2_002)
        let promptIndex = seen.firstIndex(of: "prompt") ?? Int.max
        #expect(promptIndex <= 64)
        #expect(seen.filter { $0 != "prompt" } == (0..<2_000).map { "ordered-\($0)" } + ["last"])
    }
}
