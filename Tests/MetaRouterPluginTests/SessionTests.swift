import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Sessions through the public API, on a manual clock: the first event starts one, inactivity
/// and a long stay in the background start the next, `startSession` / `endSession` / `reset`
/// work in call order, and servers get none unless they ask.
@Suite struct SessionTests {
    private func sessions(_ events: [Event]) -> [(id: Int64?, start: Bool)] {
        events.map { ($0.context["sessionId"]?.int64Value, $0.context["sessionStart"] == true) }
    }

    @Test func automaticSessionsStartOnFirstUseAndAfterInactivity() async {
        let capture = CapturingDestination()
        let clock = ManualClock()
        var options = localOptions("sessions-\(UUID())", capture: capture)
        options.defaultPlugins.insert(.sessions)
        options.clock = clock
        let analytics = MetaRouter.Analytics.instance(for: options)
        let start = Int64(clock.now().timeIntervalSince1970 * 1000)
        analytics.track("First")
        analytics.track("Second")
        await analytics.flushAndWait()
        clock.advance(by: 1_799)
        analytics.track("Still Active")
        await analytics.flushAndWait()
        clock.advance(by: 1_800)
        analytics.track("After Inactivity")
        analytics.endSession()
        analytics.track("After End")
        analytics.startSession()
        analytics.track("After Start")
        analytics.reset()
        analytics.track("After Reset")
        await analytics.flushAndWait()
        let seen = sessions(capture.events)
        let inactive = start + 3_599_000
        #expect(seen.map(\.id) == [start, start, start, inactive, inactive, inactive, inactive])
        #expect(seen.map(\.start) == [true, false, false, true, true, true, true])
        await analytics.shutdown()
    }

    @Test func aLongStayInTheBackgroundStartsANewSession() async {
        let capture = CapturingDestination()
        let clock = ManualClock()
        let source = ManualLifecycleSource()
        var options = localOptions("sessions-background-\(UUID())", capture: capture)
        options.defaultPlugins.insert(.sessions)
        options.clock = clock
        options.trackLifecycleEvents = true
        options.lifecycleSource = source
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.track("Foreground")
        await analytics.flushAndWait()
        source.send(.didEnterBackground)
        analytics.track("Background Fetch")
        await analytics.flushAndWait()
        clock.advance(by: 2_000)
        source.send(.didBecomeActive)
        analytics.track("Back")
        await analytics.flushAndWait()
        let tracked = capture.events.filter { ["Foreground", "Background Fetch", "Back"].contains($0.event ?? "") }
        let seen = sessions(tracked)
        #expect(seen.count == 3)
        #expect(seen[0].id == seen[1].id)
        #expect(seen[2].id != seen[0].id)
        #expect(seen[2].start)
        await analytics.shutdown()
    }

    @Test func serversHaveNoAutomaticSessions() async {
        let capture = CapturingDestination()
        var options = localOptions("sessions-server-\(UUID())", capture: capture)
        options.defaultPlugins.insert(.sessions)
        options.identityMode = .perCall
        let analytics = MetaRouter.Analytics.instance(for: options)
        let person = EventOptions(userId: "u1")
        analytics.track("Request", properties: nil, options: person)
        analytics.startSession()
        analytics.track("In Session", properties: nil, options: person)
        analytics.endSession()
        analytics.track("Out Again", properties: nil, options: person)
        await analytics.flushAndWait()
        let seen = sessions(capture.events)
        #expect(seen.map { $0.id == nil } == [true, false, true])
        #expect(seen[1].start)
        await analytics.shutdown()
    }
}
