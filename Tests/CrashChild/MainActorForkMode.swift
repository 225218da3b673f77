import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

// The main-actor fork mode of the child process:
//
//   MetaRouterCrashChild forkmain <directory> <host>
//       from top-level code on the main actor, before its first `await`: creates an instance
//       (bound to `shared`), tracks 5 events and waits, blocking, until they reached the disk
//       log and the collector, then forks. The child tracks, then — still on the main actor —
//       awaits every public API that waits, each under its own 5 s alarm, printing
//       "child waited <name>" after each, once more through `Task.detached`, and
//       "child done" at the end. The parent prints "child status <status>" and
//       "parent sent <count>" after delivering 5 more.
//
// Once the child's top-level code awaits, `dispatch_main` serves the main queue from
// libdispatch's pool, and Linux libdispatch has no fork handlers: a worker the parent had on a
// default-QoS queue is counted in the child but never exists there, so the main actor would
// never resume. Every queue the SDK makes names its QoS, so the child's main actor is served.

#if os(Linux)
/// The parent's half before the fork, with no `await`: the instance, its 5 events delivered.
func prepareMainActorFork(directory: String, host: String) -> MetaRouter.Analytics {
    let analytics = makeInstance(directory: directory, host: host)
    MetaRouter.Analytics.initialize(with: analytics.options)
    for index in 0..<5 { analytics.track("Before Fork", properties: ["n": index]) }
    // Delivered from several tasks at once, as an app's first screens would: the SDK's queues
    // run on libdispatch's pools meanwhile. The tasks are not at the default priority, which
    // would itself leave the child's main-queue pool counting a worker (Docs/ServerSide.md).
    let delivered = DispatchSemaphore(value: 0)
    for _ in 0..<8 {
        Task.detached(priority: .utility) {
            await analytics.flushAndWait()
            _ = await analytics.getDebugInfo()
            delivered.signal()
        }
    }
    for _ in 0..<8 { delivered.wait() }
    return analytics
}

/// The child's half, on the main actor: every waiting API awaited from there.
@MainActor
func runMainActorForkChild(_ analytics: MetaRouter.Analytics) async -> Never {
    analytics.track("In Child")
    for (name, call) in waitingCalls(analytics) {
        alarm(5)
        await call()
        say("child waited \(name)")
    }
    alarm(5)
    await Task.detached { await analytics.flushAndWait() }.value
    say("child waited Task.detached flushAndWait")
    say("child done")
    _exit(0)
}

/// The parent's half after the fork: the child reaped, 5 more events delivered.
func finishMainActorFork(_ analytics: MetaRouter.Analytics, child: pid_t) async {
    say("child status \(reap(child))")
    for index in 5..<10 { analytics.track("After Fork", properties: ["n": index]) }
    await analytics.flushAndWait()
    say("parent sent \(await analytics.getDebugInfo().stats.sent)")
}
#endif
