import Foundation
import MetaRouter

// The shared-binding mode of the child process:
//
//   MetaRouterCrashChild sharedbind <directory> <host> <calls per thread>
//       four threads call `MetaRouter.Analytics.shared` (`track`, one `identify` first on
//       thread 0) as fast as they can while the main task calls `initialize(with:)` once a
//       quarter of the calls are made; then everything is flushed and the child prints
//       "sent <count>", "dropped <count>" and "done". Nothing but the public type is used.

let sharedBindingThreads = 4

func runSharedBindingMode(directory: String, host: String, calls: Int) async {
    let started = DispatchSemaphore(value: 0)
    let quarter = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for thread in 0..<sharedBindingThreads {
        finished.enter()
        Thread.detachNewThread {
            let analytics = MetaRouter.Analytics.shared
            if thread == 0 { analytics.identify("bound-user", traits: ["plan": "pro"]) }
            started.signal()
            for index in 0..<calls {
                analytics.track("Thread \(thread)", properties: ["n": index, "thread": thread])
                if thread == 0, index == calls / 4 { quarter.signal() }
            }
            finished.leave()
        }
    }
    for _ in 0..<sharedBindingThreads { await offMainWait(started) }
    await offMainWait(quarter)
    var options = makeOptions(directory: directory, host: host, writeKey: "shared-binding")
    options.maxQueueEvents = 100_000
    MetaRouter.Analytics.initialize(with: options)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        finished.notify(queue: .global(qos: .utility)) { continuation.resume() }
    }
    let analytics = MetaRouter.Analytics.shared
    var info = await analytics.getDebugInfo()
    let deadline = Date().addingTimeInterval(60)
    while info.queueLength > 0, Date() < deadline {
        await analytics.flushAndWait()
        info = await analytics.getDebugInfo()
    }
    say("sent \(info.stats.sent)")
    say("dropped \(info.stats.droppedTotal)")
    _ = await analytics.shutdown(timeout: 5)
    say("done")
}

/// Waits for `semaphore` on a thread of its own, never on the cooperative pool.
private func offMainWait(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global(qos: .utility).async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

// The shutdown-race mode:
//
//   MetaRouterCrashChild shutdownrace <directory> <host> <rounds>
//       each round, `shutdownAll` on one task and `initialize(with:)` for a new write key on
//       another, at once; then `initialize(with:)` for a second new key. Afterwards `shared` must
//       be bound to a live instance, and the registry must hand out a live instance for the
//       first key. Prints "violations <count>" and "done".
func runShutdownRaceMode(directory: String, host: String, rounds: Int) async {
    var violations = 0
    for round in 0..<rounds {
        let racing = makeOptions(directory: "\(directory)/\(round)-a", host: host, writeKey: "race-\(round)-a")
        let after = makeOptions(directory: "\(directory)/\(round)-b", host: host, writeKey: "race-\(round)-b")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await MetaRouter.Analytics.shutdownAll(timeout: 2) }
            group.addTask { _ = MetaRouter.Analytics.initialize(with: racing) }
        }
        MetaRouter.Analytics.initialize(with: after)
        if MetaRouter.Analytics.shared.boundEngine.map({ $0.lifecycle == .shutDown }) ?? true {
            violations += 1
            say("round \(round): shared is not bound to a live instance")
        }
        if MetaRouter.Analytics.instance(for: racing).engine.lifecycle == .shutDown {
            violations += 1
            say("round \(round): the registry handed out a shut-down instance")
        }
    }
    _ = await MetaRouter.Analytics.shutdownAll(timeout: 2)
    say("violations \(violations)")
    say("done")
}

// The kept-calls race mode:
//
//   MetaRouterCrashChild keptrace <directory> <host> <rounds>
//       each round, with nothing bound, one to four `shared.track("Kept")` calls are kept —
//       every third round followed by `shared.reset()` and one more track; then
//       `initialize(with:)` races `shutdownAll` (even rounds) or the instance's own `shutdown`
//       (odd rounds), one write key and storage directory throughout. At the end the key is
//       initialized once more and everything flushed. Prints "kept <count>", a line
//       "reset-dropped <n> <mark>" for each event a reset dropped (`mark`: how many calls were
//       made before the latest `reset()` called by then), and "done": the parent checks every
//       kept call arrived or was dropped by a reset called after it.
func runKeptRaceMode(directory: String, host: String, rounds: Int) async {
    var options = makeOptions(directory: directory, host: host, writeKey: "kept-race")
    options.flushIntervalSeconds = 3600
    // How many calls were made before the latest `reset()`: set before that reset is called.
    let latestReset = Locked(0)
    options.onPermanentFailure = { failure in
        guard failure.reason == .reset else { return say("dropped \(failure.events.count): \(failure.reason)") }
        let mark = latestReset.current
        for event in failure.events { say("reset-dropped \(event["properties"]?["n"]?.int64Value ?? -1) \(mark)") }
    }
    var kept = 0
    for round in 0..<rounds {
        _ = await MetaRouter.Analytics.shutdownAll(timeout: 5)
        for _ in 0..<(1 + round % 4) {
            MetaRouter.Analytics.shared.track("Kept", properties: ["n": kept])
            kept += 1
        }
        if round % 3 == 2 {
            latestReset.withLock { $0 = kept }
            MetaRouter.Analytics.shared.reset()
            MetaRouter.Analytics.shared.track("Kept", properties: ["n": kept])
            kept += 1
        }
        let options = options
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = MetaRouter.Analytics.initialize(with: options) }
            group.addTask {
                if round % 2 == 0 {
                    _ = await MetaRouter.Analytics.shutdownAll(timeout: 5)
                } else {
                    _ = await MetaRouter.Analytics.instance(for: options).shutdown(timeout: 5)
                }
            }
        }
    }
    let analytics = MetaRouter.Analytics.initialize(with: options)
    var info = await analytics.getDebugInfo()
    let deadline = Date().addingTimeInterval(60)
    while info.queueLength > 0, Date() < deadline {
        await analytics.flushAndWait()
        info = await analytics.getDebugInfo()
    }
    _ = await MetaRouter.Analytics.shutdownAll(timeout: 5)
    say("kept \(kept)")
    say("done")
}
