import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Handled errors through the public API: the event's shape, breadcrumbs, fingerprints, the
/// errors consent channel, `beforeSendError`, rate limits and repeats.
@Suite struct ErrorCaptureTests {
    private enum PaymentError: Error { case declined }

    private func errorEvents(_ capture: CapturingDestination) -> [Event] {
        capture.events.filter { $0.event == "Error Captured" }
    }

    @Test func anErrorBecomesAnEventWithItsTrail() async {
        let capture = CapturingDestination()
        let analytics = MetaRouter.Analytics.instance(for: localOptions("errors-\(UUID())", capture: capture))
        analytics.track("Cart Viewed")
        analytics.addBreadcrumb(Breadcrumb(category: "navigation", message: "checkout", level: .info, data: ["step": 2]))
        analytics.track("Checkout Started")
        analytics.captureError(PaymentError.declined, handled: true, properties: ["order": "A-1"])
        analytics.captureError(NSError(domain: "com.example.net", code: -1009, userInfo: [NSLocalizedDescriptionKey: "offline"]),
                               handled: false, properties: nil)
        await analytics.flushAndWait()
        let reports = errorEvents(capture)
        #expect(reports.count == 2)
        let first = reports[0].properties ?? [:]
        #expect(first["order"] == "A-1")
        #expect(first["handled"] == true)
        #expect(first["error"]?["type"]?.stringValue?.hasSuffix("PaymentError") == true)
        #expect(first["error"]?["message"]?.stringValue?.isEmpty == false)
        #expect(first["fingerprint"]?.stringValue?.isEmpty == false)
        #expect((first["frames"]?.arrayValue?.count ?? 0) > 0)
        #expect(first["breadcrumbs"]?.arrayValue?.compactMap { $0["message"]?.stringValue } == ["Cart Viewed", "checkout", "Checkout Started"])
        #expect(first["breadcrumbs"]?.arrayValue?[1]["data"] == ["step": 2])
        let second = reports[1].properties ?? [:]
        #expect(second["handled"] == false)
        #expect(second["error"]?["domain"] == "com.example.net")
        #expect(second["error"]?["code"] == -1009)
        #expect(second["error"]?["message"] == "offline")
        await analytics.shutdown()
    }

    /// Captures from one code path (a thread running the same closure each time) and from
    /// another: frames above an `async` test function would differ between its partial
    /// functions, a thread's do not.
    @Test func theSameCodePathSharesAFingerprintAndRepeatsAreCounted() async {
        let capture = CapturingDestination()
        let clock = ManualClock()
        var options = localOptions("errors-repeat-\(UUID())", capture: capture)
        options.clock = clock
        let analytics = MetaRouter.Analytics.instance(for: options)
        let here: @Sendable () -> Void = { analytics.captureError(PaymentError.declined) }
        let there: @Sendable () -> Void = { analytics.captureError(PaymentError.declined) }
        for _ in 0..<3 { SmallStack.run(here) }
        SmallStack.run(there)
        await analytics.flushAndWait()
        clock.advance(by: 61)
        SmallStack.run(here)
        await analytics.flushAndWait()
        let reports = errorEvents(capture)
        let prints = reports.compactMap { $0.properties?["fingerprint"]?.stringValue }
        #expect(reports.count == 3)
        #expect(prints[0] != prints[1])
        #expect(prints[2] == prints[0])
        #expect(reports[2].properties?["repeatsSinceLastReport"] == 2)
        #expect(prints[0].hasSuffix("-MetaRouterPluginTests.ErrorCaptureTests.PaymentError"))
        await analytics.shutdown()
    }

    @Test func theErrorsChannelBeforeSendErrorAndTheRateLimitDecide() async {
        let capture = CapturingDestination()
        var options = localOptions("errors-gates-\(UUID())", capture: capture)
        options.errorCapture = ErrorCaptureOptions(maxEventsPerMinute: 2, beforeSendError: { event in
            guard event.properties?["drop"] == nil else { return nil }
            var changed = event
            changed.properties?["release"] = "1.2.3"
            return changed
        })
        let analytics = MetaRouter.Analytics.instance(for: options)
        analytics.setConsent(ConsentState(analytics: false, errors: true))
        analytics.track("Not Collected")
        analytics.captureError(PaymentError.declined, properties: ["n": 1])
        analytics.setConsent(ConsentState(analytics: true, errors: false))
        analytics.captureError(URLError(.timedOut), properties: ["n": 2])
        analytics.setConsent(.granted)
        analytics.captureError(CocoaError(.fileNoSuchFile), properties: ["drop": true])
        analytics.captureError(URLError(.badURL), properties: ["n": 3])
        analytics.captureError(URLError(.cancelled), properties: ["n": 4])
        await analytics.flushAndWait()
        let reports = errorEvents(capture)
        #expect(reports.compactMap { $0.properties?["n"]?.int64Value } == [1, 3])
        #expect(reports.allSatisfy { $0.properties?["release"] == "1.2.3" })
        #expect(capture.events.allSatisfy { $0.event != "Not Collected" })
        await analytics.shutdown()
    }

    @Test func breadcrumbsAreARingClearedByReset() async {
        let capture = CapturingDestination()
        var options = localOptions("errors-ring-\(UUID())", capture: capture)
        options.breadcrumbCapacity = 3
        let analytics = MetaRouter.Analytics.instance(for: options)
        for index in 0..<5 { analytics.track("Step \(index)") }
        analytics.captureError(PaymentError.declined)
        analytics.reset()
        analytics.captureError(URLError(.timedOut))
        await analytics.flushAndWait()
        let trails = errorEvents(capture).map { $0.properties?["breadcrumbs"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? [] }
        #expect(trails == [["Step 2", "Step 3", "Step 4"], []])
        await analytics.shutdown()
    }

    @Test func stackFramesParseBothPlatformsAndLeaveAddressesOut() {
        let linux = StackFrames(symbols: [
            "/opt/swift/usr/lib/swift/linux/libFoundation.so($s10Foundation6ThreadC16callStackSymbolsSaySSGvgZ+0x2e) [0x7f2aa4f799de]",
            "/srv/app/Server($s6Server7handleryyF+0x1f) [0x55befd66aeba]",
            "/srv/app/Server(+0xeba) [0x55befd66aeba]",
        ])
        #expect(linux.frames == ["Server $s6Server7handleryyF", "Server +0xeba"])
        let apple = StackFrames(symbols: ["3   MyApp                               0x0000000100a8c2f4 $s5MyApp3payyyF + 120"])
        #expect(apple.frames == ["MyApp $s5MyApp3payyyF"])
        let slid = StackFrames(symbols: ["/srv/app/Server($s6Server7handleryyF+0x1f) [0x7f0000000000]"])
        #expect(slid.fingerprint == StackFrames(symbols: ["/srv/app/Server($s6Server7handleryyF+0x1f) [0x55befd66aeba]"]).fingerprint)
    }
}
