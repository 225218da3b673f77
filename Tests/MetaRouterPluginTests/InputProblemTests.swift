import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// What callers pass wrong gets a stable code, a count and the app's callback — and only the
/// bad value (or the bad call) is dropped.
@Suite struct InputProblemTests {
    private final class Problems: Sendable {
        let seen = Locked<[InputProblem]>([])
    }

    /// An instance capturing its events into `capture`, its input problems into `problems`.
    private func instance(_ name: String, capture: CapturingDestination, problems: Problems, logs: RecordingLogSink = RecordingLogSink()) -> MetaRouter.Analytics {
        var options = localOptions("\(name)-\(UUID())", capture: capture, logs: logs)
        options.onInvalidInput = { problem in problems.seen.withLock { $0.append(problem) } }
        return MetaRouter.Analytics.instance(for: options)
    }

    @Test func eachProblemHasAStableCodeACountAndReachesTheCallback() async {
        let capture = CapturingDestination()
        let problems = Problems()
        let logs = RecordingLogSink()
        let analytics = instance("input", capture: capture, problems: problems, logs: logs)
        var deep: Any = "leaf"
        for _ in 0..<40 { deep = [deep] }
        analytics.track("Bad Values", properties: ["nan": Double.nan, "object": NSObject(), "deep": deep, "keys": [1: "x"], "kept": 1])
        analytics.track("  ")
        analytics.identify("")
        analytics.group(" ")
        await analytics.flushAndWait()

        let codes = problems.seen.current.map(\.code)
        #expect(Set(codes) == [.propertyNotFinite, .propertyNotEncodable, .propertiesTooDeep, .propertyKeyNotString, .missingEventName, .emptyIdentifier])
        #expect(codes.filter { $0 == .emptyIdentifier }.count == 2)
        #expect(problems.seen.current.first { $0.code == .propertyNotFinite }?.keyPath == "properties.nan")
        #expect(capture.events.map(\.event) == ["Bad Values"])
        #expect(capture.events.first?.properties?["kept"] == 1)
        let info = await analytics.getDebugInfo()
        #expect(info.invalidInput["event_property_not_finite"] == 1)
        #expect(info.invalidInput["empty_identifier"] == 2)
        #expect(info.invalidInput["missing_event_name"] == 1)
        #expect(logs.messages.contains { $0.contains("event_property_not_finite: dropped properties.nan") })
        await analytics.shutdown()
    }

    /// Context and integrations given as `JSON`, and an event handed over whole, are held to the
    /// same limits as properties: a value nested past 32 levels (which the writer would walk
    /// on the executor's stack) or a non-finite number is dropped alone and reported.
    @Test func contextIntegrationsAndProcessedEventsDropOnlyTheirBadValues() async {
        let capture = CapturingDestination()
        let problems = Problems()
        let analytics = instance("input-json", capture: capture, problems: problems)
        var deep = JSON.string("leaf")
        for _ in 0..<1_000 { deep = .array([deep]) }
        // Text the SDK's own encoder would use as a mark is the app's text here, kept as it is.
        let marked = JSON.string("\u{10FFFD}\u{E000}metarouter-unsendable:number")
        let context: [String: JSON] = ["deep": deep, "ratio": .double(.infinity), "campaign": ["source": "mail"], "note": marked]
        analytics.track("With Context", properties: ["kept": 1], options: EventOptions(context: context, integrations: ["Vendor": deep, "All": true]))
        analytics.process(Event(type: .track, event: "Processed", properties: ["deep": deep, "nan": .double(.nan), "kept": 2], context: ["deep": deep]))
        await analytics.flushAndWait()

        let seen = problems.seen.current
        #expect(Set(seen.map { String($0.keyPath.prefix { $0 != "[" }) }) == ["context.deep", "context.ratio", "integrations.Vendor", "properties.deep", "properties.nan"])
        #expect(seen.filter { $0.code == .propertiesTooDeep }.count == 4)
        #expect(capture.events.map(\.event) == ["With Context", "Processed"])
        let first = capture.events.first
        #expect(first?.context["campaign"] == ["source": "mail"] && first?.context["ratio"] == nil && first?.context["note"] == marked)
        #expect(first?.integrations?["All"] == true)
        #expect(capture.events.last?.properties?["kept"] == 2 && capture.events.last?.properties?["nan"] == nil)
        // What is kept of each deep value stops at the limit, as for properties given as values.
        let kept = [first?.context["deep"], first?.integrations?["Vendor"], capture.events.last?.properties?["deep"], capture.events.last?.context["deep"]]
        for value in kept {
            var levels = 0
            var cursor = value
            while case .array(let items)? = cursor { levels += 1; cursor = items.first }
            #expect(levels > 20 && levels < 32, "\(levels) levels kept")
        }
        await analytics.shutdown()
    }

    @Test func perCallEventsWithoutIdentityAreCountedUnderTheirCode() async {
        let capture = CapturingDestination()
        var options = localOptions("input-percall-\(UUID())", capture: capture)
        options.identityMode = .perCall
        let analytics = MetaRouter.Analytics.instance(for: options)
        for _ in 0..<3 { analytics.track("Anonymous Request") }
        await analytics.flushAndWait()
        #expect((await analytics.getDebugInfo()).invalidInput["event_without_identity"] == 3)
        await analytics.shutdown()
    }

    @Test func aTimestampThatCannotBeWrittenIsReportedAndReplacedByTheTimeOfTheCall() async {
        let capture = CapturingDestination()
        let problems = Problems()
        let analytics = instance("input-timestamp", capture: capture, problems: problems)
        let hostile: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 9.3e15, -6.3e10, 2.6e11]
        let before = Date()
        for (index, seconds) in hostile.enumerated() {
            analytics.track("Hostile \(index)", properties: ["index": index], options: EventOptions(timestamp: Date(timeIntervalSince1970: seconds)))
        }
        analytics.screen("Hostile Screen", properties: nil, options: EventOptions(timestamp: Date(timeIntervalSince1970: .nan)))
        let kept = Date(timeIntervalSince1970: 1_700_000_000.5)
        analytics.track("Kept", properties: nil, options: EventOptions(timestamp: kept))
        await analytics.flushAndWait()

        #expect(capture.events.count == hostile.count + 2)
        for event in capture.events.dropLast() {
            #expect(event.timestamp >= before && event.timestamp <= Date())
            #expect(event.messageId.hasPrefix("\(Timestamp.epochMillis(event.timestamp))-"))
        }
        #expect(capture.events.last?.timestamp == kept)
        #expect(problems.seen.current.count == hostile.count + 1)
        #expect(problems.seen.current.allSatisfy { $0.code == .invalidTimestamp && $0.keyPath == "timestamp" })
        #expect((await analytics.getDebugInfo()).invalidInput["event_timestamp_invalid"] == hostile.count + 1)
        await analytics.shutdown()
    }
}
