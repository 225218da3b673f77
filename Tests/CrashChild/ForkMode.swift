import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

// The fork mode of the child process:
//
//   MetaRouterCrashChild fork <directory> <host> [main|pool]
//       creates an instance (bound to `shared`), tracks 5 events and delivers them; forks from
//       the main thread or from a thread of Swift's cooperative pool (inside a task), as a
//       server would. The forked child tracks, then calls every public API that waits, each
//       under its own 5 s alarm (a hang shows as a signal; the parent kills a child that is
//       still there after 60 s), printing "child waited <name>"
//       after each and "child done <error> <shutdown>" at the end. The parent waits for the
//       child, prints "child status <status>", tracks 5 more, delivers them and prints
//       "parent sent <count>".

/// Every public API that waits, by name, as a child calls it.
func waitingCalls(_ analytics: MetaRouter.Analytics) -> [(String, @Sendable () async -> Void)] {
    var calls: [(String, @Sendable () async -> Void)] = [
        ("flushAndWait", { await analytics.flushAndWait() }),
        ("getDebugInfo", { _ = await analytics.getDebugInfo() }),
        ("getAnonymousId", { _ = await analytics.getAnonymousId() }),
        ("resetAndWait", { await analytics.resetAndWait() }),
        ("forget", { _ = await analytics.forget() }),
        ("performAndWait", { _ = await MetaRouter.Analytics.instance(for: analytics.options).performAndWait { _ in true } }),
        ("shared.flushAndWait", { await MetaRouter.Analytics.shared.flushAndWait() }),
        ("shared.getDebugInfo", { _ = await MetaRouter.Analytics.shared.getDebugInfo() }),
        ("Analytics.resetAndWait", { await MetaRouter.Analytics.resetAndWait() }),
        ("initializeAndWait", { _ = await MetaRouter.Analytics.initializeAndWait(with: analytics.options) }),
    ]
    #if Entitlements
    calls.append(("refreshEntitlements", { _ = try? await analytics.refreshEntitlements() }))
    #endif
    calls.append(("shutdown", { await analytics.shutdown() }))
    calls.append(("Analytics.shutdownAll", { await MetaRouter.Analytics.shutdownAll(timeout: 5) }))
    return calls
}

func runForkMode(directory: String, host: String, from place: String) async {
    #if os(Linux)
    let analytics = makeInstance(directory: directory, host: host)
    MetaRouter.Analytics.initialize(with: analytics.options)
    for index in 0..<5 { analytics.track("Before Fork", properties: ["n": index]) }
    await analytics.flushAndWait()
    // A producer at full speed while the process forks, so the locks its calls take (the
    // ingress, `shared`'s slot, the logger's) may be held by a thread the child does not have.
    let producing = Locked(true)
    let stopped = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        while producing.current { MetaRouter.Analytics.shared.track("Load") }
        stopped.signal()
    }
    usleep(20_000)
    let forked: @Sendable () async -> Int32 = {
        let child = fork()
        guard child == 0 else { return child }
        analytics.track("In Child")
        for (name, call) in waitingCalls(analytics) {
            alarm(5)
            await call()
            say("child waited \(name)")
        }
        alarm(5)
        let info = await analytics.getDebugInfo()
        let finished = await analytics.shutdown(timeout: 5)
        say("child done \(info.error ?? "none") \(finished)")
        _exit(0)
    }
    let child = place == "pool" ? await Task.detached { await forked() }.value : await forked()
    producing.withLock { $0 = false }
    stopped.wait()
    say("child status \(reap(child))")
    for index in 5..<10 { analytics.track("After Fork", properties: ["n": index]) }
    await analytics.flushAndWait()
    say("parent sent \(await analytics.getDebugInfo().stats.sent)")
    #endif
}

#if os(Linux)
/// Waits for the forked `child` and returns its wait status. A child that hangs is killed after
/// 60 s (its alarms may be blocked), so the test fails instead of waiting for ever.
func reap(_ child: pid_t) -> Int32 {
    var status: Int32 = 0
    let deadline = Date().addingTimeInterval(60)
    while waitpid(child, &status, WNOHANG) == 0 {
        if Date() > deadline {
            kill(child, SIGKILL)
            waitpid(child, &status, 0)
            break
        }
        usleep(10_000)
    }
    return status
}
#endif
