import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

// The fork mode of the child process:
//
//   MetaRouterCrashChild fork <directory> <host>
//       creates an instance, tracks 5 events and delivers them; forks. The forked child
//       tracks, waits on flushAndWait, getDebugInfo and shutdown (an alarm kills it after
//       10 s, so a hang shows as a signal), and prints "child done <error>". The parent waits
//       for the child, prints "child status <status>", tracks 5 more, delivers them and prints
//       "parent sent <count>".

func runForkMode(directory: String, host: String) async {
    #if os(Linux)
    let analytics = makeInstance(directory: directory, host: host)
    for index in 0..<5 { analytics.track("Before Fork", properties: ["n": index]) }
    await analytics.flushAndWait()
    let child = fork()
    if child == 0 {
        alarm(10)
        analytics.track("In Child")
        await analytics.flushAndWait()
        let info = await analytics.getDebugInfo()
        let finished = await analytics.shutdown(timeout: 5)
        say("child done \(info.error ?? "none") \(finished)")
        _exit(0)
    }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    say("child status \(status)")
    for index in 5..<10 { analytics.track("After Fork", properties: ["n": index]) }
    await analytics.flushAndWait()
    say("parent sent \(await analytics.getDebugInfo().stats.sent)")
    #endif
}
