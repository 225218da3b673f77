import Foundation
import MetaRouterTesting
import Testing

@testable import MetaRouterCore

/// The executor's wake-ups: a lone call wakes it at once, a stream of calls reaches it without
/// waking it (it pauses for more after events), and anything but an event ends a pause.
@Suite struct ExecutorActivityTests {
    @Test func aLoneEventStartsADrainAndEventsDuringItWakeNothing() {
        var activity = ExecutorActivity(held: false)
        let wakes = [activity.submitted(urgent: false), activity.submitted(urgent: false), activity.submitted(urgent: true)]
        #expect(wakes == [.start, .none, .none])
        // The drain ran events and found the ingress empty: it pauses for more.
        let pauses = activity.foundEmpty(afterEvents: true)
        #expect(pauses && activity.phase == .pausing)
    }

    @Test func eventsDuringAPauseWaitForItAndAnOperationEndsIt() {
        var activity = ExecutorActivity(held: false)
        _ = activity.submitted(urgent: false)
        _ = activity.foundEmpty(afterEvents: true)
        // An event waits for the pause; an operation ends it, once: the next finds the drain running.
        let wakes = [activity.submitted(urgent: false), activity.submitted(urgent: true), activity.submitted(urgent: true)]
        #expect(wakes == [.none, .endPause, .none])
        #expect(activity.phase == .draining)
    }

    @Test func aPauseThatTimesOutLooksOnceMoreThenGoesIdle() {
        var activity = ExecutorActivity(held: false)
        _ = activity.submitted(urgent: false)
        _ = activity.foundEmpty(afterEvents: true)
        let signalPending = activity.pauseTimedOut()
        #expect(!signalPending && activity.phase == .draining)
        // Nothing arrived during the pause: the executor goes idle, and the next event wakes it.
        let pausesAgain = activity.foundEmpty(afterEvents: false)
        #expect(!pausesAgain && activity.phase == .idle)
        let wake = activity.submitted(urgent: false)
        #expect(wake == .start)
    }

    @Test func aSignalRacingTheTimeoutIsReportedSoItIsConsumed() {
        var activity = ExecutorActivity(held: false)
        _ = activity.submitted(urgent: false)
        _ = activity.foundEmpty(afterEvents: true)
        // An operation ended the pause just as it timed out: its signal is still to be taken.
        let wake = activity.submitted(urgent: true)
        let signalPending = activity.pauseTimedOut()
        #expect(wake == .endPause && signalPending)
    }

    @Test func operationsAloneNeverPause() {
        var activity = ExecutorActivity(held: false)
        let wake = activity.submitted(urgent: true)
        let pauses = activity.foundEmpty(afterEvents: false)
        #expect(wake == .start && !pauses && activity.phase == .idle)
    }

    @Test func aHeldExecutorStartsOnlyWhenReleasedWithWork() {
        var activity = ExecutorActivity(held: true)
        let wakes = [activity.submitted(urgent: false), activity.submitted(urgent: true)]
        #expect(wakes == [.none, .none])
        let starts = [activity.released(hasWork: true), activity.released(hasWork: true)]
        #expect(starts == [true, false] && activity.phase == .draining)

        var empty = ExecutorActivity(held: true)
        let startsEmpty = empty.released(hasWork: false)
        #expect(!startsEmpty && empty.phase == .idle)
    }

    /// With an hour-long pause, an operation and prompt work submitted while the executor pauses
    /// after an event still run: only the pause-ending signal can get them there before the
    /// test's own deadline.
    @Test func operationsAndPromptWorkEndAPauseEarly() {
        let executor = PipelineExecutor(label: "test.executor.pause", pause: 3_600)
        let paused = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        executor.submit(.event(PreparedEvent(Event(type: .track, event: "first"))))
        // Runs after the event, in the same drain; the drain then finds the ingress empty and pauses.
        executor.submit(.operation { _ in paused.signal() })
        #expect(paused.wait(timeout: .now() + 60) == .success)
        // Another event makes sure the drain ran events since its operation, so it pauses.
        executor.submit(.event(PreparedEvent(Event(type: .track, event: "second"))))
        executor.submit(.operation { _ in ran.signal() })
        #expect(ran.wait(timeout: .now() + 60) == .success)
        executor.submitPromptly { _ in ran.signal() }
        #expect(ran.wait(timeout: .now() + 60) == .success)
    }

    @Test func aTrickleOfEventsAndOperationsArrivesInOrderThroughPauses() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        // One event at a time, each after the executor has handled the one before (the
        // pattern of a server's requests), with operations (settle) cutting pauses short.
        for index in 0..<200 {
            client.track("t", properties: ["index": index])
            if index % 20 == 19 { await client.settle() }
        }
        await client.settle()
        #expect(capture.events.compactMap { $0.properties?["index"]?.int64Value } == (0..<200).map { Int64($0) })
    }

    /// Four threads track at full speed while two others submit operations and prompt work that
    /// end the executor's pauses (and race their timeouts): every event arrives once, in each
    /// thread's order, and every piece of work runs.
    @Test func pausesEndedByConcurrentWorkLoseNothing() async {
        let capture = CapturingDestination()
        let client = makeClient([capture])
        let perThread = 3_000
        let operations = Locked(0)
        let promptWork = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            switch worker {
            case 4:
                for _ in 0..<500 { client.perform { _ in operations.withLock { $0 += 1 } } }
            case 5:
                for _ in 0..<500 { client.performPromptly { _ in promptWork.withLock { $0 += 1 } } }
            default:
                for index in 0..<perThread { client.track("t", properties: ["thread": worker, "index": index]) }
            }
        }
        await client.settle()
        #expect(operations.withLock { $0 } == 500)
        #expect(promptWork.withLock { $0 } == 500)
        var next = [Int64: Int64]()
        var ordered = true
        for event in capture.events {
            guard let thread = event.properties?["thread"]?.int64Value, let index = event.properties?["index"]?.int64Value else { continue }
            if next[thread, default: 0] != index { ordered = false }
            next[thread] = index + 1
        }
        #expect(capture.events.count == 4 * perThread)
        #expect(ordered)
    }
}
