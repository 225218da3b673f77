import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#endif

// What `initialize(with:)` costs the thread that calls it, the first time in a process, as an
// app's launch pays it: timed around `Analytics.initialize(with: InitOptions(writeKey:
// ingestionHost:))` from top-level code with nothing of the SDK or Foundation used before it —
// the options are made inside the timed call, the storage directory is the default one
// (the script points `XDG_DATA_HOME` at a fresh directory) and the clock is read with
// `clock_gettime`. Then what a later `instance(for:)` costs once the process has made one, and
// how long the first event tracked after the call took to be delivered. Prints microseconds.
// Usage: StartupProbe <ingestionHost> <storageDirectory>
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

let host = CommandLine.arguments.count >= 3 ? CommandLine.arguments[1] : ""
let first = monotonicNanoseconds()
let analytics = MetaRouter.Analytics.initialize(with: InitOptions(writeKey: "startup-probe", ingestionHost: host))
let firstCall = Double(monotonicNanoseconds() - first) / 1000

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: StartupProbe <ingestionHost> <storageDirectory>\n".utf8))
    exit(2)
}

func microseconds(since start: DispatchTime) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1000 }

var other = InitOptions(writeKey: "startup-probe-2", ingestionHost: arguments[1])
other.storageDirectory = URL(fileURLWithPath: arguments[2]).appendingPathComponent("second")
let second = DispatchTime.now()
let later = MetaRouter.Analytics.instance(for: other)
let laterCall = microseconds(since: second)

let tracked = DispatchTime.now()
analytics.track("Startup Probe")
await analytics.flushAndWait()
let delivered = await analytics.getDebugInfo().stats.sent
let firstEvent = microseconds(since: tracked)
_ = await later.shutdown(timeout: 1)
_ = await analytics.shutdown(timeout: 1)
print(String(format: "initialize %.0f us; a later instance %.0f us; first event delivered (%d) after %.0f us", firstCall, laterCall, delivered, firstEvent))
