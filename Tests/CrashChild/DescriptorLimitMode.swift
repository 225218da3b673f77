import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

// The descriptor-exhaustion mode of the child process:
//
//   MetaRouterCrashChild fdlimit <directory> <host>
//       starts an instance, then opens /dev/null until the process is out of descriptors
//       (EMFILE), tracks 5 events and flushes: the request cannot get a socket. Prints
//       "exhausted <descriptors opened>" and "circuit <state> retries <count>"; then closes
//       those descriptors, waits for the retry and prints "sent <count>".

func runDescriptorLimitMode(directory: String, host: String) async {
    #if os(Linux)
    let analytics = makeInstance(directory: directory, host: host)
    await analytics.engine.settle()
    var held: [Int32] = []
    while true {
        let descriptor = open("/dev/null", O_RDONLY)
        if descriptor < 0 { break }
        held.append(descriptor)
    }
    say("exhausted \(held.count)")
    for index in 0..<5 { analytics.track("Out Of Descriptors", properties: ["n": index]) }
    await analytics.flushAndWait()
    var info = await analytics.getDebugInfo()
    say("circuit \(info.circuitState.rawValue) retries \(info.stats.retries)")
    for descriptor in held { close(descriptor) }
    let deadline = Date().addingTimeInterval(20)
    repeat {
        try? await Task.sleep(nanoseconds: 100_000_000)
        info = await analytics.getDebugInfo()
    } while info.stats.sent < 5 && Date() < deadline
    say("sent \(info.stats.sent)")
    #endif
}
